import type { MessageRow } from '../db/repositories/executor.js';

/**
 * A posted message and the id of the one before it in its chat's order (null for the first). A
 * stream that last sent `previousId` sends it at once; any other stream has missed something
 * (or got messages out of order, as two instances' publications can arrive) and reads the chat
 * from the database after what it last sent, which is exact because a chat's messages commit in
 * their order (see postMessage).
 */
export interface PublishedMessage {
  message: MessageRow;
  previousId: string | null;
}

export interface ChatListener {
  message(published: PublishedMessage): void;
  /** Messages may have been missed (the cross-instance link was lost and is back): read the database. */
  resync(): void;
}

/**
 * Live delivery of new chat messages to open streams: in process for one instance, through Redis
 * pub/sub (src/redis/fanout.ts) for several. Delivery is a hint to be fast, never the record:
 * streams recover anything missed from the database.
 */
export interface MessageFanout {
  publish(published: PublishedMessage): void;
  /** Resolves once messages published from now on reach `listener`; to the unsubscribe function. */
  subscribe(taskId: string, listener: ChatListener): Promise<() => void>;
  /** Open subscriptions in this process (tests, metrics). */
  subscriberCount(taskId?: string): number;
}

export class InProcessFanout implements MessageFanout {
  private readonly listeners = new Map<string, Set<ChatListener>>();

  publish(published: PublishedMessage): void {
    this.deliver(published.message.task_id, (listener) => listener.message(published));
  }

  /** Every subscriber of the task (or all, without one) is told to read the database. */
  resync(taskId?: string): void {
    const tasks = taskId ? [taskId] : [...this.listeners.keys()];
    for (const task of tasks) this.deliver(task, (listener) => listener.resync());
  }

  private deliver(taskId: string, call: (listener: ChatListener) => void): void {
    for (const listener of this.listeners.get(taskId) ?? []) {
      // One broken subscriber must not stop the others.
      try {
        call(listener);
      } catch {}
    }
  }

  async subscribe(taskId: string, listener: ChatListener): Promise<() => void> {
    return this.add(taskId, listener);
  }

  /** Subscribes at once; the unsubscribe function returns whether it was the task's last listener. */
  add(taskId: string, listener: ChatListener): () => boolean {
    let set = this.listeners.get(taskId);
    if (!set) {
      set = new Set();
      this.listeners.set(taskId, set);
    }
    set.add(listener);
    return () => {
      const current = this.listeners.get(taskId);
      if (!current?.delete(listener)) return false;
      if (current.size > 0) return false;
      this.listeners.delete(taskId);
      return true;
    };
  }

  /** The tasks with subscribers here. */
  tasks(): string[] {
    return [...this.listeners.keys()];
  }

  subscriberCount(taskId?: string): number {
    if (taskId) return this.listeners.get(taskId)?.size ?? 0;
    let total = 0;
    for (const set of this.listeners.values()) total += set.size;
    return total;
  }
}
