/**
 * The new scenarios' clients (1,000 SSE streams and their poster; the webhook receiver) run in a
 * worker thread of their own, as autocannon does: on the server's event loop they would take
 * turns with the server, and the bench would time the two together.
 */
import { Worker } from 'node:worker_threads';

/** Every message between the bench and a client thread: a `type` and whatever it carries. */
export interface ThreadMessage {
  type: string;
  [field: string]: unknown;
}

/**
 * tsx 4 does not carry its loader into worker threads, so a `.ts` file cannot be a worker's entry
 * as is: a tiny bootstrap registers tsx in the thread first and then imports the file.
 */
function startTsWorker(file: URL, workerData: unknown): Worker {
  const api = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(api)}).then(({ register }) => { register(); return import(${JSON.stringify(file.href)}); })`;
  return new Worker(bootstrap, { eval: true, workerData });
}

/**
 * A client thread with a mailbox: `next(type)` waits for the next message of that type, and
 * fails at once when the thread reports an error, crashes or exits, and after `timeoutMs` in any
 * case, so no wait on a thread is unbounded.
 */
export class ClientThread {
  private readonly worker: Worker;
  private readonly inbox: ThreadMessage[] = [];
  private failure: Error | null = null;
  private wake: () => void = () => {};

  constructor(file: URL, workerData: unknown) {
    this.worker = startTsWorker(file, workerData);
    this.worker.on('message', (message: ThreadMessage) => {
      if (message.type === 'error') this.fail(new Error(String(message.message)));
      else this.inbox.push(message);
      this.wake();
    });
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`the client thread exited (code ${code})`)));
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.wake();
  }

  send(message: ThreadMessage): void {
    this.worker.postMessage(message);
  }

  async next<T = ThreadMessage>(type: string, timeoutMs: number): Promise<T> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const index = this.inbox.findIndex((m) => m.type === type);
      if (index >= 0) return this.inbox.splice(index, 1)[0] as unknown as T;
      if (this.failure) throw this.failure;
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`no "${type}" from the client thread within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  async stop(): Promise<void> {
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
  }
}
