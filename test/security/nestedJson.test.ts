import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/http/jsonShape.js';
import { MemoryRateLimitStore } from '../../src/http/rateLimit.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, type TestAgent } from '../helpers/fixtures.js';
import { listen } from '../helpers/mcp.js';

/** `levels` arrays inside one another. */
const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

describe('deeply nested JSON', () => {
  let t: TestApp;
  let agent: TestAgent;
  let baseUrl: string;
  beforeAll(async () => {
    t = await createTestApp();
    agent = await createAgent(t, { deposit: '50' });
    baseUrl = await listen(t);
  });
  afterAll(() => t.close());

  it('is a 400 naming the limit on /mcp, never an internal message', async () => {
    // Under the old 28 MiB limit this answered -32603 "Maximum call stack size exceeded".
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_task","arguments":{"taskId":${nested(200_000)}}}}`;
    const res = await fetch(new URL('/mcp', baseUrl), {
      method: 'POST',
      headers: { ...agent.headers, ...MCP_HEADERS },
      body,
    });
    const text = await res.text();
    expect(res.status, text).toBe(400);
    expect(JSON.parse(text).error).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
    expect(text).not.toMatch(/call stack/i);
  });

  it('is a 400 on REST routes, and changes nothing', async () => {
    const me = async () =>
      (await t.app.inject({ method: 'GET', url: '/agents/me', headers: agent.headers })).json();
    const before = await me();
    const res = await t.app.inject({
      method: 'POST',
      url: '/tasks',
      headers: { ...agent.headers, 'content-type': 'application/json' },
      payload: `{"title":"Deep","description":"d","reward":"1","extra":${nested(MAX_JSON_DEPTH)}}`,
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error).toContain(`${MAX_JSON_DEPTH} levels`);
    // No escrow was taken.
    expect(await me()).toEqual(before);
  });

  it(`accepts ${MAX_JSON_DEPTH} levels, and brackets inside strings do not count`, async () => {
    // The body object itself is the first level.
    const res = await t.app.inject({
      method: 'POST',
      url: '/tasks',
      headers: { ...agent.headers, 'content-type': 'application/json' },
      payload: `{"title":"Deep enough","description":${JSON.stringify(`[{"\\"${'['.repeat(500)}`)},"reward":"1","extra":${nested(MAX_JSON_DEPTH - 1)}}`,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().task.description).toBe(`[{"\\"${'['.repeat(500)}`);
  });

  it('is never parsed on a route that takes no body', async () => {
    // The unauthenticated challenge route once spent 0.4 s of CPU on 1 MiB of nesting. Its body
    // is now dropped unread: not even malformed JSON is looked at, and the connection stays usable.
    for (const payload of [nested(400_000), '{"not": json', '{}']) {
      const res = await fetch(new URL('/console/api/auth/challenge', baseUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: payload,
      });
      expect(res.status, await res.clone().text()).toBe(200);
      expect(res.headers.get('connection')).not.toBe('close');
      expect(((await res.json()) as { payload: unknown }).payload).toEqual(expect.any(String));
    }
    // A body past the route's limit is still a 413.
    const tooLarge = await t.app.inject({
      method: 'DELETE',
      url: '/tasks/tsk_nope',
      headers: { ...agent.headers, 'content-type': 'application/json' },
      payload: 'x'.repeat(1024 * 1024 + 1),
    });
    expect(tooLarge.statusCode).toBe(413);
    expect(tooLarge.json().error).toMatch(/at most 1 MiB/);
  });

  it('takes at most 1 MiB on /mcp: files go through the upload URL', async () => {
    const res = await fetch(new URL('/mcp', baseUrl), {
      method: 'POST',
      headers: { ...agent.headers, ...MCP_HEADERS },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'upload_file',
          arguments: {
            filename: 'a.pdf',
            contentType: 'application/pdf',
            contentBase64: 'A'.repeat(2 ** 20),
          },
        },
      }),
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: string }).error).toMatch(/at most 1 MiB.*upload/);
  });
});

describe('MCP rate limit before the body', () => {
  it('refuses a key past its limits before reading what it sends', async () => {
    const t = await createTestApp();
    try {
      const agent = await createAgent(t);
      const baseUrl = await listen(t);
      const limit = t.config.rateLimitStandard + t.config.rateLimitChat + t.config.rateLimitUpload;
      const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
      const post = (body: string) =>
        fetch(new URL('/mcp', baseUrl), {
          method: 'POST',
          headers: { ...agent.headers, ...MCP_HEADERS },
          body,
        });
      // Calls of a tool whose bucket is spent are refused in the tool's answer, and still count.
      for (let i = 0; i < limit; i++) expect((await post(ping)).status).toBeLessThan(500);
      // Malformed JSON shows whether the body was read: read, it would be a 400.
      const refused = await post('{"jsonrpc": "2.0", not json');
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(((await refused.json()) as { message: string }).message).toMatch(
        new RegExp(`At most ${limit} MCP requests`),
      );
    } finally {
      await t.close();
    }
  });
});

describe('MCP errors', () => {
  it('never tell the client an internal message', async () => {
    // A fault inside the server: the rate-limit store fails (as a Redis store could) for one bucket.
    const faulty = await createTestApp();
    try {
      const agent = await createAgent(faulty);
      const baseUrl = await listen(faulty);
      const hit = MemoryRateLimitStore.prototype.hit;
      MemoryRateLimitStore.prototype.hit = function (key, windowMs, nowMs) {
        if (key.startsWith('chat:')) throw new Error('connect ECONNREFUSED 10.0.0.3:6379');
        return hit.call(this, key, windowMs, nowMs);
      };
      try {
        const res = await fetch(new URL('/mcp', baseUrl), {
          method: 'POST',
          headers: { ...agent.headers, ...MCP_HEADERS },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'send_message', arguments: { taskId: 'tsk_x', content: 'hi' } },
          }),
        });
        const text = await res.text();
        expect(text).not.toMatch(/ECONNREFUSED|10\.0\.0\.3/);
        expect(JSON.parse(text).error).toEqual({
          code: -32603,
          message: 'Internal error; the request was not completed',
        });
      } finally {
        MemoryRateLimitStore.prototype.hit = hit;
      }
    } finally {
      await faulty.close();
    }
  });
});
