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

export async function challengePayload(t: TestApp): Promise<string> {
  const res = await t.app.inject({ method: 'POST', url: '/console/api/auth/challenge' });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().payload;
}

/** Signs in with a fresh wallet (or the given one) through a real ton_proof for the test domain. */
export async function signInOwner(t: TestApp, wallet: TestTonWallet = newTonWallet()): Promise<TestOwner> {
  const payload = await challengePayload(t);
  const proof = signTonProof(wallet, { payload, timestamp: unixSeconds(t.clock.now()) });
  const res = await t.app.inject({ method: 'POST', url: '/console/api/auth/login', payload: proof });
  expect(res.statusCode, res.body).toBe(200);
  const setCookie = String(res.headers['set-cookie']);
  const cookie = setCookie.split(';')[0]!;
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
