import { HandoffError } from './errors.js';
import { retryAfterMs } from './retry.js';
import { parseSse } from './sse.js';

export interface ChatStreamOptions {
  /** Resume after this message id: the server first replays what was missed since it. */
  lastEventId?: string;
  /** Stops the stream (the loop ends without an error). */
  signal?: AbortSignal;
  /** Consecutive failed connections tolerated before giving up (default 10). */
  maxReconnects?: number;
  /** Wait before reconnecting when the server does not say (default 1 s). */
  reconnectDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export interface StreamTarget {
  url: string;
  authorization: string;
  fetch: (input: string, init: RequestInit) => Promise<Response>;
}

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A chat's messages as they arrive, over Server-Sent Events. When the connection drops it
 * reconnects with Last-Event-ID set to the last message seen, so nothing is missed and nothing
 * is delivered twice. Ends when `signal` aborts or the caller stops iterating; an API error
 * (403, 404) is thrown as HandoffError.
 */
export async function* chatStream<M extends { id: string }>(
  target: StreamTarget,
  options: ChatStreamOptions = {},
): AsyncGenerator<M> {
  const maxReconnects = options.maxReconnects ?? 10;
  const sleep = options.sleep ?? sleepFor;
  let delayMs = options.reconnectDelayMs ?? 1000;
  let lastEventId = options.lastEventId;
  let failures = 0;
  const controller = new AbortController();
  const stop = () => controller.abort();
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    while (!controller.signal.aborted) {
      let wait = delayMs;
      try {
        const response = await target.fetch(target.url, {
          headers: {
            authorization: target.authorization,
            accept: 'text/event-stream',
            ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
          },
          signal: controller.signal,
        });
        if (response.status === 429 || response.status === 503) {
          wait = retryAfterMs(response.headers.get('retry-after')) ?? delayMs;
          await response.body?.cancel();
        } else if (!response.ok || !response.body) {
          const body = (await response.json().catch(() => undefined)) as HandoffError['body'];
          throw new HandoffError(response.status, body);
        } else {
          for await (const event of parseSse(response.body, (ms) => (delayMs = ms))) {
            if (event.event !== 'message') continue;
            const message = JSON.parse(event.data) as M;
            lastEventId = event.id ?? message.id;
            failures = 0;
            yield message;
          }
        }
      } catch (error) {
        if (controller.signal.aborted || error instanceof HandoffError) throw error;
      }
      if (controller.signal.aborted) return;
      if (++failures > maxReconnects) {
        throw new Error(
          `chat stream: ${maxReconnects} reconnects in a row failed; last event ${lastEventId}`,
        );
      }
      await sleep(wait);
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  } finally {
    options.signal?.removeEventListener('abort', stop);
    controller.abort();
  }
}
