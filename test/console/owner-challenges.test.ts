import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  issueOwnerChallenge,
  MAX_OPEN_CHALLENGES_PER_CLIENT,
} from '../../src/domain/owners/ownerSessions.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { loginWithProof, setCookieOf } from '../helpers/consoleApi.js';
import { newTonWallet, signTonProof, unixSeconds } from '../helpers/tonConnect.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** A challenge asked for from `ip`, with the browser's sign-in cookie when it has one. */
const challenge = (ip: string, cookie?: string) =>
  t.app.inject({
    method: 'POST',
    url: '/console/api/auth/challenge',
    remoteAddress: ip,
    ...(cookie ? { headers: { cookie } } : {}),
  });

const proofFor = (res: LightMyRequestResponse) =>
  signTonProof(newTonWallet(), { payload: res.json().payload, timestamp: unixSeconds(t.clock.now()) });

describe('console sign-in challenges cannot be used up by strangers', () => {
  it('caps the open challenges of one address: past the cap it answers 429 with what to do, other addresses are served', async () => {
    const ip = '198.51.100.10';
    for (let i = 0; i < MAX_OPEN_CHALLENGES_PER_CLIENT; i++) {
      expect((await challenge(ip)).statusCode).toBe(200);
    }
    const refused = await challenge(ip);
    expect(refused.statusCode, refused.body).toBe(429);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(refused.json()).toEqual({
      error: expect.stringMatching(
        new RegExp(
          `^${MAX_OPEN_CHALLENGES_PER_CLIENT} sign-ins are in progress from your address: finish one in the browser that started it, or retry in \\d+ s$`,
        ),
      ),
      retryAfter,
    });
    // Everyone else signs in as usual.
    const other = await challenge('198.51.100.11');
    expect(other.statusCode).toBe(200);
    const login = await loginWithProof(t, proofFor(other), {
      ip: '198.51.100.11',
      cookie: setCookieOf(other, 'handoff_signin'),
    });
    expect(login.statusCode, login.body).toBe(200);
    // The challenges expire and the address may ask again.
    t.clock.advance(10 * 60_000);
    expect((await challenge(ip)).statusCode).toBe(200);
  });

  it('counts an IPv6 client by its /64', async () => {
    for (let i = 0; i < MAX_OPEN_CHALLENGES_PER_CLIENT; i++) {
      expect((await challenge(`2001:db8:5:5::${(i + 1).toString(16)}`)).statusCode).toBe(200);
    }
    expect((await challenge('2001:db8:5:5:ffff::1')).statusCode).toBe(429);
    expect((await challenge('2001:db8:5:6::1')).statusCode).toBe(200);
  });

  it('a browser asking again replaces its own open challenge, so reloading never reaches the cap', async () => {
    const ip = '198.51.100.12';
    const first = await challenge(ip);
    const cookie = setCookieOf(first, 'handoff_signin')!;
    let last = first;
    for (let i = 0; i < MAX_OPEN_CHALLENGES_PER_CLIENT * 2; i++) {
      last = await challenge(ip, cookie);
      expect(last.statusCode, last.body).toBe(200);
      expect(setCookieOf(last, 'handoff_signin')).toBe(cookie);
    }
    // Only the newest is open: the first one's proof is refused, the last one's accepted.
    const stale = await loginWithProof(t, proofFor(first), { ip, cookie });
    expect(stale.statusCode).toBe(400);
    expect(stale.json().details[0].message).toMatch(/not a payload this service issued/);
    expect((await loginWithProof(t, proofFor(last), { ip, cookie })).statusCode).toBe(200);
  });
});

describe('a sign-in challenge is bound to the browser that asked for it', () => {
  it('sets an HttpOnly SameSite sign-in cookie with the challenge, for the sign-in routes only', async () => {
    const res = await challenge('198.51.100.20');
    expect(String(res.headers['set-cookie'])).toMatch(
      /^handoff_signin=[0-9a-f]{64}; Path=\/console\/api\/auth; HttpOnly; SameSite=Strict; Max-Age=600$/,
    );
  });

  it('accepts the proof only with the cookie of the browser that asked, and then clears that cookie', async () => {
    const ip = '198.51.100.21';
    const mine = await challenge(ip);
    const theirs = await challenge('198.51.100.22');
    const proof = proofFor(mine);

    const without = await loginWithProof(t, proof, { ip, cookie: null });
    expect(without.statusCode, without.body).toBe(400);
    expect(without.json().details[0]).toEqual({
      path: 'proof/payload',
      message:
        'was issued to another browser (or this one lost its sign-in cookie); get a new one with POST /console/api/auth/challenge from this browser and sign it again',
    });
    expect(without.headers['set-cookie']).toBeUndefined();
    const otherBrowser = await loginWithProof(t, proof, {
      ip,
      cookie: setCookieOf(theirs, 'handoff_signin'),
    });
    expect(otherBrowser.statusCode).toBe(400);

    const res = await loginWithProof(t, proof, { ip, cookie: setCookieOf(mine, 'handoff_signin') });
    expect(res.statusCode, res.body).toBe(200);
    const cookies = ([] as string[]).concat(res.headers['set-cookie'] as string | string[]);
    expect(cookies.some((c) => c.startsWith('handoff_console=') && !c.includes('Max-Age=0'))).toBe(true);
    expect(cookies).toContain(
      'handoff_signin=; Path=/console/api/auth; HttpOnly; SameSite=Strict; Max-Age=0',
    );
  });
});

describe('the stored challenges are bounded by evicting from the heaviest address', () => {
  it('at the bound, the oldest challenge of the address holding the most is dropped, never a lighter one', async () => {
    const bound = { maxStored: 6, maxPerClient: 4 };
    const now = () => t.clock.now();
    // A fresh clock window: everything older has expired.
    t.clock.advance(10 * 60_000);
    const heavy1 = await issueOwnerChallenge(t.ctx, { client: 'heavy', browser: null }, bound);
    t.clock.advance(1_000);
    const light = await issueOwnerChallenge(t.ctx, { client: 'light', browser: null }, bound);
    for (let i = 0; i < 3; i++) {
      t.clock.advance(1_000);
      await issueOwnerChallenge(t.ctx, { client: 'heavy', browser: null }, bound);
    }
    t.clock.advance(1_000);
    await issueOwnerChallenge(t.ctx, { client: 'other', browser: null }, bound);
    // Six stored; a newcomer's challenge evicts heavy's oldest.
    await issueOwnerChallenge(t.ctx, { client: 'newcomer', browser: null }, bound);
    const open = await t.ctx.db
      .selectFrom('owner_challenges')
      .select(['payload', 'client'])
      .where('expires_at', '>', now().toISOString())
      .execute();
    expect(open).toHaveLength(6);
    const payloads = open.map((r) => r.payload);
    expect(payloads).not.toContain(heavy1.payload);
    expect(payloads).toContain(light.payload);
    expect(open.filter((r) => r.client === 'heavy')).toHaveLength(3);
  });
});
