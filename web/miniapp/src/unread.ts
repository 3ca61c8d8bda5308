/**
 * Unread chat messages: the agent's messages after the worker's read point, per task, as the
 * server counts them (GET /worker/chats/unread). One shared store read by the tab bar, the task
 * rows and the task page: read again when a screen showing them appears (at most every few
 * seconds), when the app comes back into view, every half minute while it is in view (gently:
 * the worker API counts requests per minute), and right after the chat screen moves the read point.
 */
import { useEffect, useSyncExternalStore } from 'react';
import { api } from './api';

export interface UnreadCounts {
  total: number;
  byTask: ReadonlyMap<string, number>;
}

const POLL_MS = 30_000;
/** A screen that appears within this of the last read uses its counts as they are. */
const FRESH_MS = 3_000;
let readAt = 0;
const EMPTY: UnreadCounts = { total: 0, byTask: new Map() };
let current = EMPTY;
const listeners = new Set<() => void>();
let users = 0;
let timer: ReturnType<typeof setInterval> | null = null;

/** Reads the counts now; a failure keeps the last counts (a badge is not worth an error). */
export async function refreshUnread(): Promise<void> {
  readAt = performance.now();
  try {
    const res = await api<{ total: number; chats: { taskId: string; unread: number }[] }>(
      'GET',
      '/worker/chats/unread',
    );
    current = { total: res.total, byTask: new Map(res.chats.map((c) => [c.taskId, c.unread])) };
    for (const listener of listeners) listener();
  } catch {
    // Offline or signed out: the screens say so themselves.
  }
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const onVisible = () => {
  if (document.visibilityState === 'visible') void refreshUnread();
};

/** The counts, kept fresh while any screen showing them is mounted. */
export function useUnread(): UnreadCounts {
  useEffect(() => {
    users += 1;
    if (readAt === 0 || performance.now() - readAt > FRESH_MS) void refreshUnread();
    if (users === 1) {
      timer = setInterval(() => {
        if (document.visibilityState === 'visible') void refreshUnread();
      }, POLL_MS);
      document.addEventListener('visibilitychange', onVisible);
    }
    return () => {
      users -= 1;
      if (users === 0 && timer) {
        clearInterval(timer);
        timer = null;
        document.removeEventListener('visibilitychange', onVisible);
      }
    };
  }, []);
  return useSyncExternalStore(subscribe, () => current);
}

/** Tells the server the worker has seen the chat up to `messageId`, then re-reads the counts. */
export async function markRead(taskId: string, messageId: string): Promise<void> {
  await api('PUT', `/worker/chat/${encodeURIComponent(taskId)}/read`, { messageId });
  await refreshUnread();
}
