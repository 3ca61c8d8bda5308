import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { SHORT_BODY_LIMIT_BYTES } from '../../src/http/bodyLimits.js';
import { MAX_JSON_KEYS, MAX_JSON_OBJECT_KEYS } from '../../src/http/jsonShape.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { signInOwner } from '../helpers/consoleApi.js';
import { createAgent, type TestAgent } from '../helpers/fixtures.js';
import { newTonWallet } from '../helpers/tonConnect.js';

const LIMIT = 3;
const LOGIN = '/console/api/auth/login';
const JSON_HEADERS = { 'content-type': 'application/json' };

/** One object of `keys` keys (`"k0":0,"k1":0,...`), with `marker` as its first key. */
function wideObject(keys: number, marker = 'k'): string {
  const parts: string[] = [];
  for (let i = 0; i < keys; i++) parts.push(`"${marker}${i}":0`);
  return `{${parts.join(',')}}`;
}

/**
 * Issue #35, finding 5: an 832 KiB object of 100,000 keys to the unauthenticated sign-in route
 * cost 0.6-0.75 s of CPU (parse, the text guard, Ajv removing the keys), and an address over the
 * failed sign-in limit was refused only after its body was parsed. Short routes take short
 * bodies, wide objects are refused before the parse, and a throttled address is refused before
 * its body is read.
 */
describe('wide JSON objects', () => {
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
    agent = await createAgent(t, { deposit: '50' });
  });
  afterAll(async () => {
    await app.close();
    await t.close();
  });

  const from = (ip: string, options: InjectOptions) => app.inject({ ...options, remoteAddress: ip });

  it('a 100,000-key object to the sign-in route is a 413 naming the short limit', async () => {
    const res = await from('198.51.100.21', {
      method: 'POST',
      url: LOGIN,
      headers: JSON_HEADERS,
      payload: wideObject(100_000),
    });
    expect(res.statusCode, res.body).toBe(413);
    expect(res.json().error).toBe(
      `Request body is too large (at most ${SHORT_BODY_LIMIT_BYTES / 1024} KiB here); this route takes a few short fields: send only those`,
    );
  });

  it('a wide object within the short limit is a 400 from the parser, before the schema sees it', async () => {
    const body = wideObject(MAX_JSON_OBJECT_KEYS + 1);
    expect(body.length).toBeLessThan(SHORT_BODY_LIMIT_BYTES);
    const res = await from('198.51.100.22', {
      method: 'POST',
      url: LOGIN,
      headers: JSON_HEADERS,
      payload: body,
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toEqual({
      error: `JSON body has an object with more than ${MAX_JSON_OBJECT_KEYS} keys; no request needs more: send only the fields the route takes`,
    });
  });

  it('is a 400 on routes with the ordinary limit, nested or not, and changes nothing', async () => {
    const me = async () =>
      (await t.app.inject({ method: 'GET', url: '/agents/me', headers: agent.headers })).json();
    const before = await me();
    const post = (payload: string) =>
      t.app.inject({
        method: 'POST',
        url: '/tasks',
        headers: { ...agent.headers, ...JSON_HEADERS },
        payload,
      });
    const wide = await post(
      `{"title":"Wide","description":"d","reward":"1","extra":{"inner":${wideObject(MAX_JSON_OBJECT_KEYS + 1)}}}`,
    );
    expect(wide.statusCode, wide.body).toBe(400);
    expect(wide.json().error).toContain(`more than ${MAX_JSON_OBJECT_KEYS} keys;`);
    // Narrow objects by the thousand: too many keys in all.
    const narrow = Array.from({ length: MAX_JSON_KEYS / 10 + 1 }, () => wideObject(10)).join(',');
    const many = await post(`{"title":"Many","description":"d","reward":"1","extra":[${narrow}]}`);
    expect(many.statusCode, many.body).toBe(400);
    expect(many.json().error).toBe(
      `JSON body has more than ${MAX_JSON_KEYS} keys in all; no request needs more: send only the fields the route takes, or split a batch`,
    );
    expect(await me()).toEqual(before);
  });

  it(`accepts ${MAX_JSON_OBJECT_KEYS} keys in one object, and colons and braces inside strings do not count`, async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/tasks',
      headers: { ...agent.headers, ...JSON_HEADERS },
      payload: `{"title":"Wide enough","description":${JSON.stringify(`a:b {${':'.repeat(2000)}`)},"reward":"1","extra":${wideObject(MAX_JSON_OBJECT_KEYS - 1)}}`,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().task.description).toBe(`a:b {${':'.repeat(2000)}`);
  });

  it('an address over the failed sign-in limit gets its 429 before its body is read; other addresses are parsed as before', async () => {
    const ip = '198.51.100.23';
    for (let i = 0; i < LIMIT; i++) {
      const res = await from(ip, { method: 'POST', url: LOGIN, payload: {} });
      expect(res.statusCode, res.body).toBe(400);
    }
    // Every JSON body goes through JSON.parse (Fastify's secure-json-parse calls it): a body that
    // is read and parsed leaves its marker in the spy's calls.
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const parsed = (marker: string) =>
        parse.mock.calls.some(([text]) => typeof text === 'string' && text.includes(marker));
      for (const [marker, keys] of [
        ['throttledsmall', 500],
        ['throttledlarge', 100_000],
      ] as const) {
        const res = await from(ip, {
          method: 'POST',
          url: LOGIN,
          headers: JSON_HEADERS,
          payload: wideObject(keys, marker),
        });
        expect(res.statusCode, res.body).toBe(429);
        expect(res.json()).toMatchObject({ error: 'Too many failed sign-in attempts' });
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
        expect(parsed(marker)).toBe(false);
      }
      // The same body from an address under the limit is read and parsed (its proof is then refused).
      const other = await from('198.51.100.24', {
        method: 'POST',
        url: LOGIN,
        headers: JSON_HEADERS,
        payload: wideObject(500, 'fresh'),
      });
      expect(other.statusCode, other.body).toBe(400);
      expect(parsed('fresh')).toBe(true);
    } finally {
      parse.mockRestore();
    }
    // A real proof from another address signs in as before.
    await signInOwner({ ...t, app }, newTonWallet(), { ip: '198.51.100.25' });
  });
});
