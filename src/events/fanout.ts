import type { MessageRow } from '../db/repositories/executor.js';

export type MessageListener = (message: MessageRow) => void;

/**
 * Live delivery of new chat messages to open streams. The in-process implementation serves one
 * instance; a cross-instance one (Redis pub/sub) can replace it behind this interface, and a
 * stream that missed something recovers it from the database with Last-Event-ID anyway.
 */
export interface MessageFanout {
  publish(message: MessageRow): void;
  /** Returns the unsubscribe function. */
  subscribe(taskId: string, listener: MessageListener): () => void;
}

export class InProcessFanout implements MessageFanout {
  private readonly listeners = new Map<string, Set<MessageListener>>();

  publish(message: MessageRow): void {
    for (const listener of this.listeners.get(message.task_id) ?? []) {
      // One broken subscriber must not stop the others.
      try {
        listener(message);
      } catch {}
    }
  }

  subscribe(taskId: string, listener: MessageListener): () => void {
    let set = this.listeners.get(taskId);
    if (!set) {
      set = new Set();
      this.listeners.set(taskId, set);
    }
    set.add(listener);
    return () => {
      const current = this.listeners.get(taskId);
      current?.delete(listener);
      if (current?.size === 0) this.listeners.delete(taskId);
    };
  }

  /** Open subscriptions, for tests and metrics. */
  subscriberCount(taskId?: string): number {
    if (taskId) return this.listeners.get(taskId)?.size ?? 0;
    let total = 0;
    for (const set of this.listeners.values()) total += set.size;
    return total;
  }
}
