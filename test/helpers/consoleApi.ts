import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { Json } from './agentApi.js';
import type { TestApp } from './app.js';
import { newTonWallet, signTonProof, type TestTonWallet, unixSeconds } from './tonConnect.js';

/** A signed-in console owner: the session cookie and the CSRF token the sign-in answered. */
export interface TestOwner {
  wallet: TestTonWallet;
  ownerId: string;
  cookie: string;
  csrfToken: string;
}

type Method = NonNullable<InjectOptions['method']>;

/** The sign-in cookie each challenge was issued with: its proof is accepted only with it. */
const challengeCookies = new Map<string, string>();

/** The first `name=value` of a Set-Cookie header naming `name`, or null. */
export function setCookieOf(res: LightMyRequestResponse, name: string): string | null {
  const header = res.headers['set-cookie'];
  const all = header === undefined ? [] : Array.isArray(header) ? header : [String(header)];
  const found = all.find((c) => c.startsWith(`${name}=`));
  return found ? found.split(';')[0]! : null;
}

/** A sign-in challenge asked for as a browser does (from `ip` when given); its cookie is kept for the login. */
export async function challengePayload(t: TestApp, options: { ip?: string } = {}): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/console/api/auth/challenge',
    ...(options.ip ? { remoteAddress: options.ip } : {}),
  });
  expect(res.statusCode, res.body).toBe(200);
  const payload: string = res.json().payload;
  const cookie = setCookieOf(res, 'handoff_signin');
  if (cookie) challengeCookies.set(payload, cookie);
  return payload;
}

/** POST /auth/login with a proof, carrying the sign-in cookie its challenge was issued with. */
export function loginWithProof(
  t: TestApp,
  proof: unknown,
  options: { ip?: string; cookie?: string | null } = {},
): Promise<LightMyRequestResponse> {
  const payload = (proof as { proof?: { payload?: unknown } })?.proof?.payload;
  const cookie =
    options.cookie !== undefined
      ? options.cookie
      : typeof payload === 'string'
        ? (challengeCookies.get(payload) ?? null)
        : null;
  return t.app.inject({
    method: 'POST',
    url: '/console/api/auth/login',
    payload: proof as InjectOptions['payload'],
    ...(cookie ? { headers: { cookie } } : {}),
    ...(options.ip ? { remoteAddress: options.ip } : {}),
  });
}

/** Signs in with a fresh wallet (or the given one) through a real ton_proof for the test domain. */
export async function signInOwner(
  t: TestApp,
  wallet: TestTonWallet = newTonWallet(),
  options: { ip?: string } = {},
): Promise<TestOwner> {
  const payload = await challengePayload(t, options);
  const proof = signTonProof(wallet, { payload, timestamp: unixSeconds(t.clock.now()) });
  const res = await loginWithProof(t, proof, options);
  expect(res.statusCode, res.body).toBe(200);
  const cookie = setCookieOf(res, 'handoff_console')!;
  const body = res.json();
  return { wallet, ownerId: body.owner.id, cookie, csrfToken: body.csrfToken };
}

/** A console request as the owner: the cookie always, the CSRF header unless `csrf: false`. */
export function consoleCall(
  t: TestApp,
  owner: TestOwner,
  method: Method,
  url: string,
  payload?: unknown,
  options: { csrf?: boolean | string } = {},
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { cookie: owner.cookie };
  if (options.csrf !== false)
    headers['x-csrf-token'] = typeof options.csrf === 'string' ? options.csrf : owner.csrfToken;
  return t.app.inject({
    method,
    url: `/console/api${url}`,
    headers,
    ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }),
  });
}

/** A console request that must answer `status`; returns the parsed body. */
export async function consoleOk(
  t: TestApp,
  owner: TestOwner,
  method: Method,
  url: string,
  payload?: unknown,
  status = 200,
): Promise<Json> {
  const res = await consoleCall(t, owner, method, url, payload);
  expect(res.statusCode, res.body).toBe(status);
  return res.json();
}
