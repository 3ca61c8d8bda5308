import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, DIALECT, type TestApp } from '../helpers/app.js';

/** A pino destination that keeps every line it is given, parsed. */
function collector() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      callback();
    },
  });
  return { lines, stream };
}

describe(`access log on ${DIALECT}`, () => {
  const info = collector();
  const warn = collector();
  let t: TestApp;
  let quiet: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ logger: { level: 'info', stream: info.stream } });
    quiet = await createTestApp({ logger: { level: 'warn', stream: warn.stream } });
  });
  afterAll(async () => {
    await t.close();
    await quiet.close();
  });

  it('writes one line a request, when it is answered, with its request id', async () => {
    const before = info.lines.length;
    const health = await t.app.inject({ url: '/health', headers: { 'x-request-id': 'probe-1' } });
    const refused = await t.app.inject({ method: 'POST', url: '/tasks?draft=1', payload: {} });
    expect(health.statusCode).toBe(200);
    expect(refused.statusCode).toBe(401);
    const lines = info.lines.slice(before);
    // Fastify's own two lines a request are off.
    expect(lines.filter((l) => l.msg === 'incoming request' || l.msg === 'request completed')).toEqual([]);
    const requests = lines.filter((l) => l.msg === 'request');
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({
      level: 30,
      reqId: 'probe-1',
      method: 'GET',
      url: '/health',
      statusCode: 200,
      ip: '127.0.0.1',
    });
    expect(requests[1]).toMatchObject({
      reqId: refused.headers['x-request-id'],
      method: 'POST',
      url: '/tasks?draft=1',
      statusCode: 401,
    });
    for (const line of requests) expect(line.ms).toEqual(expect.any(Number));
  });

  it("never logs a signed upload URL's signature", async () => {
    const before = info.lines.length;
    const url = '/uploads/upl_nope?expires=4102444800&signature=c2VjcmV0LXNpZ25hdHVyZQ';
    const put = await t.app.inject({ method: 'PUT', url, payload: 'bytes' });
    expect(put.statusCode).toBeGreaterThanOrEqual(400);
    const logged = JSON.stringify(info.lines.slice(before));
    expect(logged).not.toContain('c2VjcmV0LXNpZ25hdHVyZQ');
    const line = info.lines.slice(before).find((l) => l.msg === 'request');
    // The upload's id is also its file's download credential (/files/<id>/<name>).
    expect(line?.url).toBe('/uploads/[redacted]?expires=4102444800&signature=[redacted]');
  });

  it('writes none below info', async () => {
    expect((await quiet.app.inject({ url: '/health' })).statusCode).toBe(200);
    expect(warn.lines.filter((l) => l.msg === 'request')).toEqual([]);
  });
});
