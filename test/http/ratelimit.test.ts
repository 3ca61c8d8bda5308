import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { assignedTask, createAgent, createWorker } from '../helpers/fixtures.js';

const WINDOW_MS = 60_000;
const UPLOAD_BODY = { filename: 'notes.txt', contentType: 'text/plain' };

function limitHeaders(res: LightMyRequestResponse) {
  return {
    limit: Number(res.headers['x-ratelimit-limit']),
    remaining: Number(res.headers['x-ratelimit-remaining']),
    reset: Number(res.headers['x-ratelimit-reset']),
  };
}

/** A 429 as the decisions give it: body, Retry-After, and the X-RateLimit-* headers. */
function expectLimited(res: LightMyRequestResponse, limit: number) {
  expect(res.statusCode, res.body).toBe(429);
  const body = res.json();
  expect(body.error).toBe('Rate limit exceeded');
  expect(Number.isInteger(body.retryAfter)).toBe(true);
  expect(body.retryAfter).toBeGreaterThanOrEqual(1);
  expect(body.retryAfter).toBeLessThanOrEqual(60);
  expect(res.headers['retry-after']).toBe(String(body.retryAfter));
  expect(limitHeaders(res)).toEqual({ limit, remaining: 0, reset: body.retryAfter });
}

/**
 * Sends requests until the window's allowance is used up, checking the headers count down, and
 * returns the first request over the limit.
 */
async function exhaust(limit: number, send: () => Promise<LightMyRequestResponse>, okStatus: number) {
  const first = await send();
  expect(first.statusCode, first.body).toBe(okStatus);
  let { remaining } = limitHeaders(first);
  expect(limitHeaders(first).limit).toBe(limit);
  expect(remaining).toBeLessThan(limit);
  while (remaining > 0) {
    const res = await send();
    expect(res.statusCode, res.body).toBe(okStatus);
    expect(limitHeaders(res)).toMatchObject({ limit, remaining: remaining - 1 });
    remaining--;
  }
  return send();
}

describe('rate limits', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('uses the configured test limits', () => {
    expect([t.config.rateLimitStandard, t.config.rateLimitChat, t.config.rateLimitUpload]).toEqual([
      100, 30, 10,
    ]);
  });

  it('the 101st standard request in a minute by one key gets 429; another key is unaffected', async () => {
    const agent = await createAgent(t);
    const other = await createAgent(t);
    for (let i = 1; i <= 100; i++) {
      const res = await call(t, agent, 'GET', '/agents/me');
      expect(res.statusCode, res.body).toBe(200);
      expect(limitHeaders(res)).toEqual({ limit: 100, remaining: 100 - i, reset: 60 });
    }
    const over = await call(t, agent, 'GET', '/agents/me');
    expectLimited(over, 100);
    expect(over.json().retryAfter).toBe(60);
    // Any standard route is refused now, before its handler runs.
    expectLimited(await call(t, agent, 'POST', '/tasks', { title: 'x', description: 'y', reward: '1' }), 100);

    const fresh = await call(t, other, 'GET', '/agents/me');
    expect(fresh.statusCode).toBe(200);
    expect(limitHeaders(fresh)).toEqual({ limit: 100, remaining: 99, reset: 60 });

    // Reset counts down with the window, and Retry-After with it.
    t.clock.advance(25_000);
    const later = await call(t, agent, 'GET', '/agents/me');
    expectLimited(later, 100);
    expect(later.json().retryAfter).toBe(35);

    // A new window after a minute.
    t.clock.advance(35_000);
    const again = await call(t, agent, 'GET', '/agents/me');
    expect(again.statusCode).toBe(200);
    expect(limitHeaders(again)).toEqual({ limit: 100, remaining: 99, reset: 60 });
  });

  it('the headers come on every authenticated response, errors included', async () => {
    const agent = await createAgent(t);
    const responses = [
      await call(t, agent, 'GET', '/agents/me'),
      await call(t, agent, 'GET', '/tasks/tsk_doesnotexist'),
      await call(t, agent, 'POST', '/tasks', { title: '', description: 'y', reward: '1' }),
      await call(t, agent, 'POST', '/agents/webhooks'),
      await call(t, agent, 'GET', '/agents/webhooks/deliveries'),
      await t.app.inject({
        method: 'POST',
        url: '/tasks',
        headers: { ...agent.headers, 'content-type': 'application/json' },
        payload: '{"title":',
      }),
    ];
    expect(responses.map((r) => r.statusCode)).toEqual([200, 404, 400, 409, 200, 400]);
    expect(responses[5]!.json().error).toBe('Invalid JSON body');
    responses.forEach((res, i) => {
      expect(limitHeaders(res), `response ${i}`).toEqual({ limit: 100, remaining: 99 - i, reset: 60 });
    });
    // No key, no bucket: a 401 carries no limit headers and counts against nobody.
    const anonymous = await call(t, { headers: {} }, 'GET', '/agents/me');
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('chat message POSTs count against the chat limit; standard requests still work', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker);
    const before = limitHeaders(await call(t, agent, 'GET', '/agents/me')).remaining;

    const over = await exhaust(
      30,
      () => call(t, agent, 'POST', `/chat/${taskId}/messages`, { content: 'hello' }),
      201,
    );
    expectLimited(over, 30);

    // The refused message was not written; reading the chat is a standard request.
    const list = await call(t, agent, 'GET', `/chat/${taskId}/messages?limit=100`);
    expect(list.statusCode).toBe(200);
    expect(list.json().messages).toHaveLength(30);
    // Thirty chat posts did not touch the standard allowance: this is its next request after `before`.
    expect(limitHeaders(list)).toEqual({ limit: 100, remaining: before - 1, reset: expect.any(Number) });
    expect((await call(t, agent, 'GET', '/agents/me')).statusCode).toBe(200);

    // The worker has a bucket of its own.
    const reply = await call(t, worker, 'POST', `/worker/chat/${taskId}/messages`, { content: 'hi' });
    expect(reply.statusCode, reply.body).toBe(201);
    expect(limitHeaders(reply)).toMatchObject({ limit: 30, remaining: 29 });

    t.clock.advance(WINDOW_MS);
    const next = await call(t, agent, 'POST', `/chat/${taskId}/messages`, { content: 'new minute' });
    expect(next.statusCode).toBe(201);
    expect(limitHeaders(next)).toEqual({ limit: 30, remaining: 29, reset: 60 });
  });

  it('uploads count against the upload limit', async () => {
    const agent = await createAgent(t);
    const over = await exhaust(10, () => call(t, agent, 'POST', '/upload', UPLOAD_BODY), 200);
    expectLimited(over, 10);
    const me = await call(t, agent, 'GET', '/agents/me');
    expect(me.statusCode).toBe(200);
    expect(limitHeaders(me).limit).toBe(100);

    t.clock.advance(WINDOW_MS);
    const next = await call(t, agent, 'POST', '/upload', UPLOAD_BODY);
    expect(next.statusCode, next.body).toBe(200);
    expect(limitHeaders(next)).toEqual({ limit: 10, remaining: 9, reset: 60 });
  });

  it('worker routes are limited per worker', async () => {
    const worker = await createWorker(t, { wallet: false });
    const other = await createWorker(t, { wallet: false });
    const over = await exhaust(100, () => call(t, worker, 'GET', '/worker/me'), 200);
    expectLimited(over, 100);
    expectLimited(await call(t, worker, 'GET', '/worker/tasks'), 100);

    const fine = await call(t, other, 'GET', '/worker/me');
    expect(fine.statusCode).toBe(200);
    expect(limitHeaders(fine).limit).toBe(100);
    expect(limitHeaders(fine).remaining).toBeGreaterThan(90);

    const uploads = await exhaust(10, () => call(t, worker, 'POST', '/worker/upload', UPLOAD_BODY), 200);
    expectLimited(uploads, 10);

    t.clock.advance(WINDOW_MS);
    const next = await call(t, worker, 'GET', '/worker/me');
    expect(next.statusCode, next.body).toBe(200);
    expect(limitHeaders(next)).toEqual({ limit: 100, remaining: 99, reset: 60 });
  });

  it('a concurrent burst lets exactly the limit through', async () => {
    const agent = await createAgent(t);
    const burst: LightMyRequestResponse[] = await Promise.all(
      Array.from({ length: 105 }, () => call(t, agent, 'GET', '/agents/me')),
    );
    const statuses = burst.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(100);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    const remaining = burst.filter((r) => r.statusCode === 200).map((r) => limitHeaders(r).remaining);
    expect(new Set(remaining).size).toBe(100);
  });
});
