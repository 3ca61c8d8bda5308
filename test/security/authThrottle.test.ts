import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { AUTH_FAILURE_WINDOW_MS } from '../../src/http/authThrottle.js';
import { createTestApp, type TestApp, workerAuth } from '../helpers/app.js';
import { createAgent, type TestAgent } from '../helpers/fixtures.js';

const LIMIT = 3;
const WRONG_KEY = `hr_${'0'.repeat(64)}`;

/**
 * Guessing credentials costs one request per guess, so failed authentication is throttled per
 * client address: after LIMIT failures within the window, that address gets 429 with
 * Retry-After on every authenticated route, before any credential is looked at.
 */
describe('throttling of failed authentication', () => {
  let t: TestApp;
  let app: FastifyInstance;
  let agent: TestAgent;
  beforeAll(async () => {
    t = await createTestApp();
    app = await buildApp({
      config: { ...t.config, authFailureLimit: LIMIT },
      db: t.services.db,
      chain: t.services.chain,
      clock: t.clock,
    });
    agent = await createAgent(t);
  });
  afterAll(async () => {
    await app.close();
    await t.close();
  });

  const from = (ip: string, options: InjectOptions) => app.inject({ ...options, remoteAddress: ip });
  const asAgent = (ip: string, headers: Record<string, string>) =>
    from(ip, { method: 'GET', url: '/agents/me', headers });

  function expectThrottled(res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }) {
    expect(res.statusCode).toBe(429);
    const retryAfter = Number(res.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(AUTH_FAILURE_WINDOW_MS / 1000);
    expect(res.json()).toEqual({
      error: 'Too many failed sign-in attempts',
      retryAfter,
      message: expect.stringMatching(
        /^3 failed authentication attempts came from your address within 15 minutes; check your credentials and retry in \d+ s$/,
      ),
    });
  }

  it('wrong API keys: after the limit the address gets 429, even with a good key, and the key is not looked up; other addresses are unaffected', async () => {
    const ip = '203.0.113.1';
    for (let i = 0; i < LIMIT; i++) {
      expect((await asAgent(ip, { authorization: `Bearer ${WRONG_KEY}` })).statusCode).toBe(401);
    }
    expectThrottled(await asAgent(ip, { authorization: `Bearer ${WRONG_KEY}` }));

    // A valid key never used before: a look-up would record its first use.
    const fresh = await createAgent(t);
    expectThrottled(await asAgent(ip, fresh.headers));
    const key = await t.ctx.db
      .selectFrom('api_keys')
      .select('last_used_at')
      .where('agent_id', '=', fresh.id)
      .executeTakeFirstOrThrow();
    expect(key.last_used_at).toBeNull();
    // MCP takes the same keys and is throttled alike.
    expectThrottled(
      await from(ip, {
        method: 'POST',
        url: '/mcp',
        headers: { ...fresh.headers, host: 'localhost:3000' },
        payload: {},
      }),
    );

    // Another address signs in as usual, with either agent's key.
    expect((await asAgent('203.0.113.2', agent.headers)).statusCode).toBe(200);
    expect((await asAgent('203.0.113.2', fresh.headers)).statusCode).toBe(200);

    // The window ends and the address may try again.
    t.clock.advance(AUTH_FAILURE_WINDOW_MS);
    expect((await asAgent(ip, fresh.headers)).statusCode).toBe(200);
  });

  it('a wrong admin token is throttled the same way', async () => {
    const ip = '203.0.113.3';
    const wrong = { authorization: `Bearer ${'x'.repeat(32)}` };
    for (let i = 0; i < LIMIT; i++) {
      expect((await from(ip, { method: 'GET', url: '/admin/audit', headers: wrong })).statusCode).toBe(401);
    }
    expectThrottled(await from(ip, { method: 'GET', url: '/admin/audit', headers: t.admin }));
    expect(
      (await from('203.0.113.4', { method: 'GET', url: '/admin/audit', headers: t.admin })).statusCode,
    ).toBe(200);
  });

  it('forged Mini App init data is throttled the same way', async () => {
    const ip = '203.0.113.5';
    const good = workerAuth(t, 880_001);
    const forged = { authorization: good.authorization.replace(/hash=[0-9a-f]{4}/, 'hash=0000') };
    for (let i = 0; i < LIMIT; i++) {
      const res = await from(ip, { method: 'GET', url: '/worker/me', headers: forged });
      expect(res.statusCode, res.body).toBe(401);
    }
    expectThrottled(await from(ip, { method: 'GET', url: '/worker/me', headers: good }));
    expect((await from('203.0.113.6', { method: 'GET', url: '/worker/me', headers: good })).statusCode).toBe(
      200,
    );
  });

  it('unknown console session cookies and refused wallet proofs are throttled the same way', async () => {
    const ip = '203.0.113.7';
    const bogus = { cookie: `handoff_console=${'a'.repeat(43)}` };
    for (let i = 0; i < LIMIT - 1; i++) {
      const res = await from(ip, { method: 'GET', url: '/console/api/session', headers: bogus });
      expect(res.statusCode, res.body).toBe(401);
    }
    // A proof that does not verify is a failed sign-in too.
    const login = await from(ip, { method: 'POST', url: '/console/api/auth/login', payload: {} });
    expect(login.statusCode, login.body).toBe(400);
    expectThrottled(await from(ip, { method: 'POST', url: '/console/api/auth/challenge' }));
    expectThrottled(await from(ip, { method: 'GET', url: '/console/api/session', headers: bogus }));
    expect(
      (await from('203.0.113.8', { method: 'POST', url: '/console/api/auth/challenge' })).statusCode,
    ).toBe(200);
  });
});

/**
 * Behind a reverse proxy every request comes from the proxy's address. With TRUST_PROXY naming
 * the proxy, the throttle counts by the client the proxy names in X-Forwarded-For, so one
 * client's guesses do not lock out the others; without it, or from a peer it does not name, the
 * header is ignored (anyone could send one). Over real HTTP: here the proxy is 127.0.0.1.
 */
describe('throttling of failed authentication behind a reverse proxy (TRUST_PROXY)', () => {
  let t: TestApp;
  let agent: TestAgent;
  const apps: FastifyInstance[] = [];
  beforeAll(async () => {
    t = await createTestApp();
    agent = await createAgent(t);
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await t.close();
  });

  /** A fresh app (its own throttle) on the test app's database, listening on 127.0.0.1. */
  async function listening(trustProxy: boolean | string[]): Promise<string> {
    const app = await buildApp({
      config: { ...t.config, authFailureLimit: LIMIT, trustProxy },
      db: t.services.db,
      chain: t.services.chain,
      clock: t.clock,
    });
    apps.push(app);
    return app.listen({ port: 0, host: '127.0.0.1' });
  }

  const asAgent = async (base: string, forwardedFor: string | null, headers: Record<string, string>) => {
    const res = await fetch(`${base}/agents/me`, {
      headers: { ...headers, ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
    });
    await res.arrayBuffer();
    return res.status;
  };
  const wrong = { authorization: `Bearer ${WRONG_KEY}` };

  it('with TRUST_PROXY naming the proxy, two forwarded clients are throttled separately', async () => {
    const base = await listening(['127.0.0.1']);
    for (let i = 0; i < LIMIT; i++) expect(await asAgent(base, '198.51.100.1', wrong)).toBe(401);
    expect(await asAgent(base, '198.51.100.1', agent.headers)).toBe(429);
    // The proxy appends the address it saw: the last entry is the client, what it claimed is not.
    expect(await asAgent(base, '198.51.100.2, 198.51.100.1', agent.headers)).toBe(429);

    expect(await asAgent(base, '198.51.100.2', agent.headers)).toBe(200);
    expect(await asAgent(base, '198.51.100.2', wrong)).toBe(401);
    // The proxy's own requests (no header) are its own address, not throttled either.
    expect(await asAgent(base, null, agent.headers)).toBe(200);
  });

  it('without TRUST_PROXY, or from a peer it does not name, X-Forwarded-For is ignored', async () => {
    for (const trustProxy of [false, ['10.0.0.0/8']]) {
      const base = await listening(trustProxy);
      for (let i = 0; i < LIMIT; i++) expect(await asAgent(base, '198.51.100.3', wrong)).toBe(401);
      // Every request is 127.0.0.1's, whatever it forwards for.
      expect(await asAgent(base, '198.51.100.4', agent.headers)).toBe(429);
      expect(await asAgent(base, null, agent.headers)).toBe(429);
    }
  });
});
