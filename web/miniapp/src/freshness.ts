import { on } from '@tma.js/sdk-react';

/**
 * Screens re-read what they show when the app comes back into view (Telegram's
 * `visibility_changed`, the page's `visibilitychange` and window focus), when something about the
 * worker's tasks arrives (a chat message), and every POLL_MS while visible. A worker who left the
 * app open saw "You applied" after the agent had accepted them, or an old dispute statement, until
 * they relaunched it (issue #36): now no screen contradicts the server for more than POLL_MS.
 * Bursts (focus and visibility together, several messages) coalesce into one re-read.
 */
const POLL_MS = 15_000;
const COALESCE_MS = 300;

const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | null = null;
let pending: ReturnType<typeof setTimeout> | null = null;
let stopTelegram: (() => void) | null = null;

const visible = () => document.visibilityState === 'visible';

function fire() {
  pending = null;
  for (const listener of [...listeners]) listener();
}

/** Asks every mounted screen to re-read its data, once for a burst of asks. */
export function refreshSoon(): void {
  if (pending === null && listeners.size > 0) pending = setTimeout(fire, COALESCE_MS);
}

const onVisible = () => {
  if (visible()) refreshSoon();
};

function start() {
  timer = setInterval(onVisible, POLL_MS);
  document.addEventListener('visibilitychange', onVisible);
  window.addEventListener('focus', onVisible);
  try {
    stopTelegram = on('visibility_changed', ({ is_visible }) => {
      if (is_visible) refreshSoon();
    });
  } catch {
    // Outside Telegram (a browser during development): the page's own events are enough.
  }
}

function stop() {
  if (timer) clearInterval(timer);
  if (pending) clearTimeout(pending);
  timer = null;
  pending = null;
  document.removeEventListener('visibilitychange', onVisible);
  window.removeEventListener('focus', onVisible);
  stopTelegram?.();
  stopTelegram = null;
}

/** Calls `listener` whenever the screens should re-read; returns the unsubscribe. */
export function onRefresh(listener: () => void): () => void {
  listeners.add(listener);
  if (listeners.size === 1) start();
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) stop();
  };
}
