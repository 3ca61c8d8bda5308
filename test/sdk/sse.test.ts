import { expect, it } from 'vitest';
import { parseSse } from '../../sdk/src/sse.js';

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

it('parses events split anywhere, CRLF included, with comments and retry', async () => {
  const retries: number[] = [];
  const events = [];
  const body = streamOf([
    'retry: 3000\n\n: keep-alive\n\nid: msg_1\r',
    '\nevent: message\r\ndata: {"a":',
    '1}\r\n\r\nid: msg_2\nevent: message\ndata: line one\ndata: line two\n\n',
    'data: no end',
  ]);
  for await (const event of parseSse(body, (ms) => retries.push(ms))) events.push(event);
  expect(retries).toEqual([3000]);
  expect(events).toEqual([
    { event: 'message', id: 'msg_1', data: '{"a":1}' },
    { event: 'message', id: 'msg_2', data: 'line one\nline two' },
  ]);
});
