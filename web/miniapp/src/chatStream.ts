import { authHeader, type Message } from './api';

/**
 * Reads a task chat's event stream until aborted, reconnecting from the last message seen (with
 * a growing pause). fetch, not EventSource: EventSource cannot send the Authorization header.
 */
export async function followChat(
  taskId: string,
  signal: AbortSignal,
  onMessage: (m: Message) => void,
  setLive: (live: boolean) => void,
  lastId: string | null,
) {
  let last = lastId;
  let delayMs = 1000;
  while (!signal.aborted) {
    try {
      const response = await fetch(`/worker/chat/${encodeURIComponent(taskId)}/stream`, {
        headers: { authorization: authHeader(), ...(last ? { 'last-event-id': last } : {}) },
        signal,
      });
      if (!response.ok || !response.body) throw new Error(`stream ${response.status}`);
      setLive(true);
      delayMs = 1000;
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let split = buffer.indexOf('\n\n');
        while (split >= 0) {
          const frame = parseFrame(buffer.slice(0, split));
          buffer = buffer.slice(split + 2);
          if (frame) {
            last = frame.id ?? last;
            onMessage(frame.message);
          }
          split = buffer.indexOf('\n\n');
        }
      }
    } catch {
      // A dropped connection or a refusal: wait, then reconnect from the last message.
    }
    setLive(false);
    if (signal.aborted) return;
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    delayMs = Math.min(delayMs * 2, 30_000);
  }
}

function parseFrame(frame: string): { id: string | null; message: Message } | null {
  let event = 'message';
  let id: string | null = null;
  const data: string[] = [];
  for (const line of frame.split('\n')) {
    if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('id:')) id = line.slice(3).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
  }
  if (event !== 'message' || data.length === 0) return null;
  try {
    return { id, message: JSON.parse(data.join('\n')) as Message };
  } catch {
    return null;
  }
}

/** History first, then anything the stream delivered meanwhile, each message once. */
export function mergeMessages(history: Message[], current: Message[] | null): Message[] {
  const seen = new Set(history.map((m) => m.id));
  return [...history, ...(current ?? []).filter((m) => !seen.has(m.id))];
}
