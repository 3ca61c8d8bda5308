/** One Server-Sent Event. */
export interface SseEvent {
  event: string;
  data: string;
  id: string | undefined;
}

/** Parses a text/event-stream body as the HTML standard describes (comments and unknown fields ignored). */
export async function* parseSse(
  body: ReadableStream<Uint8Array>,
  onRetry: (ms: number) => void = () => {},
): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event = {
    type: '',
    data: [] as string[],
    id: undefined as string | undefined,
  };
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      // A trailing CR may be the first half of a CRLF split across chunks: keep it for the next.
      const cut = buffer.endsWith('\r') ? buffer.length - 1 : buffer.length;
      const lines = buffer.slice(0, cut).split(/\r\n|\r|\n/);
      buffer = (lines.pop() ?? '') + buffer.slice(cut);
      for (const line of lines) {
        if (line === '') {
          if (event.data.length > 0) {
            yield {
              event: event.type || 'message',
              data: event.data.join('\n'),
              id: event.id,
            };
          }
          event = { type: '', data: [], id: undefined };
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event.type = value;
        else if (field === 'data') event.data.push(value);
        else if (field === 'id') event.id = value;
        else if (field === 'retry' && /^\d+$/.test(value)) onRetry(Number(value));
      }
    }
  } finally {
    reader.releaseLock();
  }
}
