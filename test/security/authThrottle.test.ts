import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { OWNER_SESSION_TTL_MS } from '../../src/domain/owners/ownerSessions.js';
import { AUTH_FAILURE_WINDOW_MS } from '../../src/http/authThrottle.js';
import { createTestApp, type TestApp, workerAuth } from '../helpers/app.js';
import { challengePayload, loginWithProof, signInOwner } from '../helpers/consoleApi.js';
import { createAgent, type TestAgent } from '../helpers/fixtures.js';
import { newTonWallet, signTonProof, unixSeconds } from '../helpers/tonConnect.js';

const LIMIT = 3;
const WRONG_KEY = `hr_${'0'.repeat(64)}`;

/**
 * Guessing credentials costs one request per guess, so failed authentication is throttled per
 * client address (an IPv6 client by its /64): after LIMIT failures within the window, every
 * further failure from that address gets 429 with Retry-After; a credential that verifies still
 * goes through, so one bad client behind a shared address locks out nobody else there.
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

  it('wrong API keys: after the limit a wrong key from the address gets 429, a valid key still goes through, and other addresses are unaffected', async () => {
    const ip = '203.0.113.1';
    for (let i = 0; i < LIMIT; i++) {
      expect((await asAgent(ip, { authorization: `Bearer ${WRONG_KEY}` })).statusCode).toBe(401);
    }
    expectThrottled(await asAgent(ip, { authorization: `Bearer ${WRONG_KEY}` }));
    expectThrottled(
      await from(ip, {
        method: 'POST',
        url: '/mcp',
        headers: { authorization: `Bearer ${WRONG_KEY}`, host: 'localhost:3000' },
        payload: {},
      }),
    );

    // One bad client behind a shared address must not lock out the valid agents there: a key
    // that verifies goes through, on REST and on MCP.
    const fresh = await createAgent(t);
    expect((await asAgent(ip, fresh.headers)).statusCode).toBe(200);
    expect((await asAgent(ip, agent.headers)).statusCode).toBe(200);
    const mcp = await from(ip, {
      method: 'POST',
      url: '/mcp',
      headers: {
        ...fresh.headers,
        host: 'localhost:3000',
        accept: 'application/json, text/event-stream',
      },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(mcp.statusCode, mcp.body).toBe(200);

    // Another address is not throttled at all.
    expect((await asAgent('203.0.113.2', { authorization: `Bearer ${WRONG_KEY}` })).statusCode).toBe(401);

    // The window ends and a wrong key is a plain 401 again.
    t.clock.advance(AUTH_FAILURE_WINDOW_MS);
    expect((await asAgent(ip, { authorization: `Bearer ${WRONG_KEY}` })).statusCode).toBe(401);
  });

  it('a wrong admin token is throttled the same way; the right one goes through', async () => {
    const ip = '203.0.113.3';
    const wrong = { authorization: `Bearer ${'x'.repeat(32)}` };
    for (let i = 0; i < LIMIT; i++) {
      expect((await from(ip, { method: 'GET', url: '/admin/audit', headers: wrong })).statusCode).toBe(401);
    }
    expectThrottled(await from(ip, { method: 'GET', url: '/admin/audit', headers: wrong }));
    expect((await from(ip, { method: 'GET', url: '/admin/audit', headers: t.admin })).statusCode).toBe(200);
  });

  it('forged Mini App init data is throttled the same way; valid init data goes through', async () => {
    const ip = '203.0.113.5';
    const good = workerAuth(t, 880_001);
    const forged = { authorization: good.authorization.replace(/hash=[0-9a-f]{4}/, 'hash=0000') };
    for (let i = 0; i < LIMIT; i++) {
      const res = await from(ip, { method: 'GET', url: '/worker/me', headers: forged });
      expect(res.statusCode, res.body).toBe(401);
    }
    expectThrottled(await from(ip, { method: 'GET', url: '/worker/me', headers: forged }));
    expect((await from(ip, { method: 'GET', url: '/worker/me', headers: good })).statusCode).toBe(200);
  });

  it('made-up console session cookies and refused wallet proofs are throttled the same way; a valid session goes through, a valid proof once the window ends', async () => {
    const ip = '203.0.113.7';
    const bogus = { cookie: `handoff_console=${'a'.repeat(43)}` };
    for (let i = 0; i < LIMIT - 1; i++) {
      const res = await from(ip, { method: 'GET', url: '/console/api/session', headers: bogus });
      expect(res.statusCode, res.body).toBe(401);
    }
    // A proof that does not verify is a failed sign-in too.
    const login = await from(ip, { method: 'POST', url: '/console/api/auth/login', payload: {} });
    expect(login.statusCode, login.body).toBe(400);
    expectThrottled(await from(ip, { method: 'GET', url: '/console/api/session', headers: bogus }));
    expectThrottled(await from(ip, { method: 'POST', url: '/console/api/auth/login', payload: {} }));

    // A sign-in from an address over the limit is refused before its body is read (issue #35,
    // finding 5), a real proof too; once the window ends it signs in, and its session works there.
    const wallet = newTonWallet();
    const payload = await challengePayload({ ...t, app }, { ip });
    const early = await loginWithProof(
      { ...t, app },
      signTonProof(wallet, { payload, timestamp: unixSeconds(t.clock.now()) }),
      { ip },
    );
    expectThrottled(early);
    t.clock.advance(AUTH_FAILURE_WINDOW_MS);
    const owner = await signInOwner({ ...t, app }, wallet, { ip });
    const session = await from(ip, {
      method: 'GET',
      url: '/console/api/session',
      headers: { cookie: owner.cookie },
    });
    expect(session.statusCode, session.body).toBe(200);
  });

  it('counts failed console logins by route, whatever query string the URL carries', async () => {
    const ip = '203.0.113.9';
    for (let i = 0; i < LIMIT; i++) {
      const res = await from(ip, { method: 'POST', url: '/console/api/auth/login?x=1', payload: {} });
      expect(res.statusCode, res.body).toBe(400);
    }
    expectThrottled(await from(ip, { method: 'POST', url: '/console/api/auth/login?y=2', payload: {} }));
  });

  it('a dropped or expired console session is not a failure: a stale tab polling it is told to sign in (and its cookie cleared), never locked out', async () => {
    const ip = '203.0.113.10';
    const signedOut = await signInOwner({ ...t, app }, newTonWallet(), { ip });
    const out = await from(ip, {
      method: 'POST',
      url: '/console/api/auth/logout',
      headers: { cookie: signedOut.cookie, 'x-csrf-token': signedOut.csrfToken },
    });
    expect(out.statusCode, out.body).toBe(200);
    const expired = await signInOwner({ ...t, app }, newTonWallet(), { ip });
    t.clock.advance(OWNER_SESSION_TTL_MS);
    for (const stale of [signedOut, expired]) {
      for (let i = 0; i < LIMIT * 3; i++) {
        const res = await from(ip, {
          method: 'GET',
          url: '/console/api/agents',
          headers: { cookie: stale.cookie },
        });
        expect(res.statusCode, res.body).toBe(401);
        expect(res.json()).toMatchObject({ error: 'Unauthorized', reason: 'ended' });
        // The browser forgets the cookie, so the tab's next request carries none.
        expect(String(res.headers['set-cookie'])).toMatch(
          /^handoff_console=; Path=\/console; HttpOnly; SameSite=Strict; Max-Age=0/,
        );
      }
    }
    // Nothing was counted: a wrong key from that address is a plain 401.
    expect((await asAgent(ip, { authorization: `Bearer ${WRONG_KEY}` })).statusCode).toBe(401);
  });

  it('counts an IPv6 client by its /64: other addresses of that network are throttled with it, the next network is not', async () => {
    const wrong = { authorization: `Bearer ${WRONG_KEY}` };
    for (let i = 0; i < LIMIT; i++) {
      expect((await asAgent(`2001:db8:7:1::${i + 1}`, wrong)).statusCode).toBe(401);
    }
    expectThrottled(await asAgent('2001:db8:7:1:ffff:ffff:ffff:ffff', wrong));
    expectThrottled(await asAgent('2001:0db8:0007:0001:0:0:0:abcd', wrong));
    expect((await asAgent('2001:db8:7:2::1', wrong)).statusCode).toBe(401);
    // An IPv4-mapped address is its IPv4 address.
    for (let i = 0; i < LIMIT; i++)
      expect((await asAgent('::ffff:198.51.100.77', wrong)).statusCode).toBe(401);
    expectThrottled(await asAgent('198.51.100.77', wrong));
    expect((await asAgent('198.51.100.78', wrong)).statusCode).toBe(401);
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
    expect(await asAgent(base, '198.51.100.1', wrong)).toBe(429);
    // The proxy appends the address it saw: the last entry is the client, what it claimed is not.
    expect(await asAgent(base, '198.51.100.2, 198.51.100.1', wrong)).toBe(429);
    expect(await asAgent(base, '198.51.100.1', agent.headers)).toBe(200);

    expect(await asAgent(base, '198.51.100.2', wrong)).toBe(401);
    // The proxy's own requests (no header) are its own address, not throttled either.
    expect(await asAgent(base, null, wrong)).toBe(401);
  });

  it('without TRUST_PROXY, or from a peer it does not name, X-Forwarded-For is ignored', async () => {
    for (const trustProxy of [false, ['10.0.0.0/8']]) {
      const base = await listening(trustProxy);
      for (let i = 0; i < LIMIT; i++) expect(await asAgent(base, '198.51.100.3', wrong)).toBe(401);
      // Every request is 127.0.0.1's, whatever it forwards for.
      expect(await asAgent(base, '198.51.100.4', wrong)).toBe(429);
      expect(await asAgent(base, null, wrong)).toBe(429);
      expect(await asAgent(base, '198.51.100.4', agent.headers)).toBe(200);
    }
  });
});
