/**
 * A minimal in-process async mutex: tasks passed to `run` execute one at a time, in call order.
 * The sandbox gateway needs this because a wallet's seqno must advance one send at a time and
 * the emulator must never see two sends interleaved.
 */
export class Mutex {
  /** Settles when the last queued task has finished; never rejects, so one failure cannot block the queue. */
  private tail: Promise<void> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
