import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OWNER_SESSION_TTL_MS } from '../../src/domain/owners/ownerSessions.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import {
  challengePayload,
  consoleCall,
  consoleOk,
  loginWithProof,
  signInOwner,
} from '../helpers/consoleApi.js';
import { newTonWallet, signTonProof, unixSeconds } from '../helpers/tonConnect.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const login = (body: unknown) => loginWithProof(t, body);

describe('owner sign-in with a TON Connect proof', () => {
  it('signs in, sets an HttpOnly SameSite cookie (not Secure on localhost) and knows the session', async () => {
    const wallet = newTonWallet('v5r1');
    const payload = await challengePayload(t);
    const res = await login(signTonProof(wallet, { payload, timestamp: unixSeconds(t.clock.now()) }));
    expect(res.statusCode, res.body).toBe(200);
    const cookie = ([] as string[])
      .concat(res.headers['set-cookie'] as string | string[])
      .find((c) => c.startsWith('handoff_console='))!;
    expect(cookie).toMatch(
      /^handoff_console=[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{22}; Path=\/console; HttpOnly; SameSite=Strict; Max-Age=43200$/,
    );
    const session = await consoleOk(
      t,
      { wallet, ownerId: '', cookie: cookie.split(';')[0]!, csrfToken: '' },
      'GET',
      '/session',
    );
    expect(session.owner.id).toMatch(/^own_/);
    expect(session.csrfToken).toBe(res.json().csrfToken);
    // The same wallet signing in again is the same owner.
    const again = await signInOwner(t, wallet);
    expect(again.ownerId).toBe(session.owner.id);
  });

  it('refuses a forged proof (signed by another key) and sets no cookie', async () => {
    const payload = await challengePayload(t);
    const forged = signTonProof(newTonWallet(), {
      payload,
      timestamp: unixSeconds(t.clock.now()),
      signer: newTonWallet().keys,
    });
    const res = await login(forged);
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].path).toBe('proof/signature');
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('refuses a replayed proof: the payload is single-use', async () => {
    const wallet = newTonWallet();
    const payload = await challengePayload(t);
    const proof = signTonProof(wallet, { payload, timestamp: unixSeconds(t.clock.now()) });
    expect((await login(proof)).statusCode).toBe(200);
    const replay = await login(proof);
    expect(replay.statusCode).toBe(400);
    expect(replay.json().details[0].message).toMatch(/already used/);
    expect(replay.headers['set-cookie']).toBeUndefined();
  });

  it('refuses a payload it never issued, another domain, and an old proof', async () => {
    const wallet = newTonWallet();
    const now = unixSeconds(t.clock.now());
    const unknown = await login(signTonProof(wallet, { payload: 'a'.repeat(64), timestamp: now }));
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().details[0].message).toMatch(/not a payload this service issued/);
    const otherSite = await login(
      signTonProof(wallet, { payload: await challengePayload(t), timestamp: now, domain: 'evil.test' }),
    );
    expect(otherSite.json().details[0].path).toBe('proof/domain/value');
    const old = await login(
      signTonProof(wallet, { payload: await challengePayload(t), timestamp: now - 3600 }),
    );
    expect(old.json().details[0].path).toBe('proof/timestamp');
  });

  it('refuses requests without a session or with a made-up cookie', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/console/api/agents' })).statusCode).toBe(401);
    const res = await t.app.inject({
      method: 'GET',
      url: '/console/api/agents',
      headers: { cookie: 'handoff_console=nope' },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().message).toMatch(/sign in/);
  });

  it('refuses a state-changing request without the CSRF token, and changes nothing', async () => {
    const owner = await signInOwner(t);
    const crossSite = await t.app.inject({
      method: 'POST',
      url: '/console/api/agents',
      headers: { cookie: owner.cookie, origin: 'https://evil.test', 'content-type': 'application/json' },
      payload: { name: 'Planted' },
    });
    expect(crossSite.statusCode).toBe(403);
    expect(crossSite.json().error).toMatch(/x-csrf-token/);
    const wrong = await consoleCall(
      t,
      owner,
      'POST',
      '/agents',
      { name: 'Planted' },
      { csrf: 'x'.repeat(43) },
    );
    expect(wrong.statusCode).toBe(403);
    expect((await consoleOk(t, owner, 'GET', '/agents')).agents).toEqual([]);
    // The agent API mounted in the console is guarded the same way.
    const agent = (await consoleOk(t, owner, 'POST', '/agents', { name: 'Mine' }, 201)).agent;
    const res = await consoleCall(
      t,
      owner,
      'PATCH',
      `/agents/${agent.id}/api/agents/webhooks`,
      { url: null },
      { csrf: false },
    );
    expect(res.statusCode).toBe(403);
  });

  it('ends a session after its lifetime and on sign-out', async () => {
    const owner = await signInOwner(t);
    expect((await consoleCall(t, owner, 'GET', '/session')).statusCode).toBe(200);
    t.clock.advance(OWNER_SESSION_TTL_MS);
    expect((await consoleCall(t, owner, 'GET', '/session')).statusCode).toBe(401);
    expect((await consoleCall(t, owner, 'POST', '/agents', { name: 'Late' })).statusCode).toBe(401);

    const next = await signInOwner(t);
    const out = await consoleCall(t, next, 'POST', '/auth/logout');
    expect(out.statusCode).toBe(200);
    expect(String(out.headers['set-cookie'])).toMatch(/Max-Age=0/);
    expect((await consoleCall(t, next, 'GET', '/session')).statusCode).toBe(401);
  });
});
