import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, createWorker, type TestAgent, type TestWorker } from '../helpers/fixtures.js';

/** Upload bodies that are not what the route takes: a clear 4xx, never a 500. */
describe('broken upload bodies', () => {
  let t: TestApp;
  let agent: TestAgent;
  let worker: TestWorker;

  beforeAll(async () => {
    t = await createTestApp();
    agent = await createAgent(t);
    worker = await createWorker(t);
  });
  afterAll(() => t.close());

  const cases: [string, string, string][] = [
    ['multipart without a boundary', 'multipart/form-data', '--x\r\n\r\nhello\r\n--x--\r\n'],
    ['multipart with an empty boundary', 'multipart/form-data; boundary=', 'hello'],
    ['multipart with a body that does not match', 'multipart/form-data; boundary=abc', 'not multipart'],
    [
      'multipart cut off inside the file',
      'multipart/form-data; boundary=abc',
      '--abc\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhel',
    ],
    [
      'multipart with a broken part header',
      'multipart/form-data; boundary=abc',
      '--abc\r\nContent-Disposition\r\n\r\nhello\r\n--abc--\r\n',
    ],
    ['text/plain', 'text/plain', 'hello'],
    ['an unknown type', 'application/x-whatever', 'hello'],
  ];

  for (const [name, contentType, payload] of cases) {
    it(`answers ${name} with a 4xx that says what to send`, async () => {
      for (const [url, who] of [
        ['/upload', agent],
        ['/worker/upload', worker],
      ] as const) {
        const res = await t.app.inject({
          method: 'POST',
          url,
          headers: { ...who.headers, 'content-type': contentType },
          payload,
        });
        expect(res.statusCode, `${url}: ${res.body}`).toBeGreaterThanOrEqual(400);
        expect(res.statusCode, `${url}: ${res.body}`).toBeLessThan(500);
        expect(res.body).toMatch(/multipart|JSON|Content-Type/i);
      }
    });
  }
});
