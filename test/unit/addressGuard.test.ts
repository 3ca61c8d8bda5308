import systemDns from 'node:dns';
import dnsPromises from 'node:dns/promises';
import { isIP } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { checkWebhookTarget } from '../../src/domain/events/webhookUrl.js';
import { isPublicAddress, refuseNonPublicHost } from '../../src/events/addressGuard.js';
import { postJson } from '../../src/events/httpPost.js';
import { dispatchDueDeliveries } from '../../src/outbox/webhookDeliveries.js';
import { call, ok } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { agentMe, createAgent, createTask, type TestAgent } from '../helpers/fixtures.js';
import { Receiver } from '../helpers/receiver.js';

/**
 * DNS is the one outside part replaced here: names resolve to what each test says, so "a host
 * that resolves to a private address" is tested without a network or a special resolver.
 * Unknown names fail to resolve, as they would offline.
 */
const dns = { answers: new Map<string, string[]>() };
const fakeLookup = (async (host: string) => {
  const answer = dns.answers.get(host);
  if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return answer.map((address) => ({ address, family: isIP(address) }));
}) as unknown as typeof dnsPromises.lookup;
// Replaced on the shared module object (not with vi.mock), so it holds however test files share modules.
const resolver = vi.spyOn(dnsPromises, 'lookup').mockImplementation(fakeLookup);
afterAll(() => resolver.mockRestore());

const REFUSED = [
  '127.0.0.1',
  '127.1.2.3',
  '10.0.0.1',
  '10.255.255.255',
  '172.16.0.1',
  '172.31.255.254',
  '192.168.1.1',
  '169.254.169.254',
  '100.64.0.1',
  '0.0.0.0',
  '224.0.0.1',
  '255.255.255.255',
  '::',
  '::1',
  'fc00::1',
  'fd12:3456:789a::1',
  'fe80::1',
  'ff02::1',
  '::ffff:127.0.0.1',
  '::ffff:10.0.0.1',
  '::ffff:169.254.169.254',
  '::ffff:7f00:1',
  '::ffff:a00:1',
  '0:0:0:0:0:ffff:7f00:1',
  // IPv4-compatible (::/96, deprecated) and IPv4-translated (::ffff:0:0:0/96) forms.
  '::127.0.0.1',
  '::7f00:1',
  '::10.0.0.1',
  '::ffff:0:7f00:1',
  '::ffff:0:a00:1',
  // Site-local (fec0::/10, deprecated by RFC 3879 but still routed inside some networks).
  'fec0::1',
  'FEC0:0:0:0:0:0:0:1',
  'fed0::1',
  'feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
  'fec0::10.0.0.1',
  // The other IPv4-embedding forms of a private IPv4 address, in every spelling.
  '0:0:0:0:0:0:a00:1',
  '::ffff:0:10.0.0.1',
  '0:0:0:0:0:ffff:0a00:0001',
];
const ALLOWED = [
  '1.1.1.1',
  '8.8.8.8',
  '93.184.216.34',
  '172.32.0.1',
  '2606:4700::1111',
  '2001:4860:4860::8888',
  // An IPv4-mapped public address reaches that public address.
  '::ffff:1.1.1.1',
];

describe('isPublicAddress', () => {
  it.each(REFUSED)('%s is not public', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each(ALLOWED)('%s is public', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });

  it.each(['localhost', 'example.com', '', '1.1.1', '::g'])('%j is not an address at all', (value) => {
    expect(isPublicAddress(value)).toBe(false);
  });
});

describe('refuseNonPublicHost', () => {
  beforeEach(() => dns.answers.clear());

  it.each(REFUSED)('refuses %s', async (ip) => {
    const reason = await refuseNonPublicHost(ip.includes(':') ? `[${ip}]` : ip);
    expect(reason).toMatch(/not a public address/);
  });

  it.each(ALLOWED)('allows %s', async (ip) => {
    expect(await refuseNonPublicHost(ip)).toBeNull();
  });

  it('allows a bracketed IPv6 host as URL.hostname gives it', async () => {
    expect(await refuseNonPublicHost(new URL('https://[2606:4700::1111]/hook').hostname)).toBeNull();
    expect(await refuseNonPublicHost(new URL('https://[::1]/hook').hostname)).toMatch(/not a public address/);
  });

  it('refuses localhost and its subdomains without asking DNS', async () => {
    dns.answers.set('localhost', ['93.184.216.34']);
    expect(await refuseNonPublicHost('localhost')).toBe('localhost is not a public address');
    expect(await refuseNonPublicHost('api.localhost')).toBe('localhost is not a public address');
  });

  it('refuses a name that resolves to a private address, even when only one of its addresses is private', async () => {
    dns.answers.set('internal.example.com', ['10.1.2.3']);
    dns.answers.set('mixed.example.com', ['93.184.216.34', '127.0.0.1']);
    dns.answers.set('metadata.example.com', ['169.254.169.254']);
    dns.answers.set('public.example.com', ['93.184.216.34', '2606:4700::1111']);
    expect(await refuseNonPublicHost('internal.example.com')).toBe(
      'internal.example.com resolves to 10.1.2.3, which is not a public address',
    );
    expect(await refuseNonPublicHost('mixed.example.com')).toMatch(/resolves to 127\.0\.0\.1/);
    expect(await refuseNonPublicHost('metadata.example.com')).toMatch(/resolves to 169\.254\.169\.254/);
    expect(await refuseNonPublicHost('public.example.com')).toBeNull();
  });

  it.each(['::ffff:127.0.0.1', '::127.0.0.1', '::ffff:10.0.0.1', '::ffff:7f00:1'])(
    'refuses a name that resolves to %s',
    async (ip) => {
      dns.answers.set('v6.example.com', ['2606:4700::1111', ip]);
      expect(await refuseNonPublicHost('v6.example.com')).toBe(
        `v6.example.com resolves to ${ip}, which is not a public address`,
      );
    },
  );

  it('refuses a name that does not resolve', async () => {
    expect(await refuseNonPublicHost('nowhere.invalid')).toBe('cannot resolve nowhere.invalid');
  });
});

describe('checkWebhookTarget', () => {
  const strict = { allowPrivateTargets: false, timeoutMs: 1_000 };
  const lax = { allowPrivateTargets: true, timeoutMs: 1_000 };
  beforeEach(() => dns.answers.clear());

  it('refuses private targets only when private targets are not allowed', async () => {
    await expect(checkWebhookTarget('url', 'http://127.0.0.1:9/x', strict)).rejects.toMatchObject({
      kind: 'validation',
      extra: {
        details: [
          {
            path: 'url',
            message:
              'must reach a public address: 127.0.0.1 resolves to 127.0.0.1, which is not a public address',
          },
        ],
      },
    });
    expect(await checkWebhookTarget('url', 'http://127.0.0.1:9/x', lax)).toBe('http://127.0.0.1:9/x');
    expect(await checkWebhookTarget('url', 'https://1.1.1.1/hook', strict)).toBe('https://1.1.1.1/hook');
  });

  it.each([
    'ftp://example.com/x',
    'javascript:alert(1)',
    'file:///etc/passwd',
    'not a url',
    '//example.com/x',
  ])('refuses %j whatever the setting', async (url) => {
    const refusal = {
      kind: 'validation',
      extra: { details: [{ path: 'url', message: 'must be an absolute http:// or https:// URL' }] },
    };
    await expect(checkWebhookTarget('url', url, lax)).rejects.toMatchObject(refusal);
    await expect(checkWebhookTarget('url', url, strict)).rejects.toMatchObject(refusal);
  });
});

describe('postJson to a pinned address', () => {
  it('connects to the given address while the Host header keeps the URL host', async () => {
    const receiver = await Receiver.start();
    try {
      const port = new URL(receiver.url).port;
      // The name resolves nowhere: only the pinned address can have been connected to.
      const status = await postJson(`http://hooks.agent.example:${port}/hooks`, {}, '{}', 2_000, {
        address: '127.0.0.1',
        family: 4,
      });
      expect(status).toBe(200);
      expect(receiver.requests).toHaveLength(1);
      expect(receiver.requests[0]!.headers.host).toBe(`hooks.agent.example:${port}`);
    } finally {
      await receiver.close();
    }
  });
});

describe('an app that refuses private webhook targets', () => {
  let t: TestApp;
  /** The same database, chain and clock, served by an app built with webhookAllowPrivate false. */
  let strict: FastifyInstance;
  let s: TestApp;
  let receiver: Receiver;
  beforeAll(async () => {
    t = await createTestApp();
    strict = await buildApp({
      config: { ...t.config, webhookAllowPrivate: false, webhookTimeoutMs: 1_000 },
      db: t.services.db,
      chain: t.services.chain,
      clock: t.clock,
    });
    s = { ...t, app: strict, ctx: strict.ctx };
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    await receiver.close();
    await strict.close();
    await t.close();
  });
  beforeEach(() => dns.answers.clear());

  it.each([
    'http://127.0.0.1:9/x',
    'http://localhost:9/x',
    'http://[::1]/x',
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.5/hook',
    'http://192.168.0.10/hook',
    'http://[::ffff:127.0.0.1]/x',
    'http://[::ffff:7f00:1]/x',
    'http://[::127.0.0.1]/x',
    'http://[::ffff:10.0.0.1]/x',
    // Other spellings of 127.0.0.1 that URL parsing normalises.
    'http://2130706433:9/x',
    'http://0x7f.1/x',
  ])('PATCH /agents/webhooks {url: %j} is 400 and changes nothing', async (url) => {
    const agent = await createAgent(s);
    const res = await call(s, agent, 'PATCH', '/agents/webhooks', { url });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({
      error: 'Validation failed',
      details: [
        {
          path: 'url',
          message: expect.stringMatching(/must reach a public address: .*not a public address/),
        },
      ],
    });
    expect((await ok(s, agent, 'GET', '/agents/me')).agent.webhookUrl).toBeNull();
  });

  it('refuses a name that resolves privately, and accepts public targets', async () => {
    const agent = await createAgent(s);
    dns.answers.set('hooks.internal.example', ['10.20.30.40']);
    const res = await call(s, agent, 'PATCH', '/agents/webhooks', {
      url: 'https://hooks.internal.example/x',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].message).toMatch(/resolves to 10\.20\.30\.40/);

    dns.answers.set('hooks.agent.example', ['93.184.216.34']);
    const good = await ok(s, agent, 'PATCH', '/agents/webhooks', { url: 'https://hooks.agent.example/x' });
    expect(good.webhook).toMatchObject({ url: 'https://hooks.agent.example/x', configured: true });
    expect(
      (await ok(s, agent, 'PATCH', '/agents/webhooks', { url: 'https://1.1.1.1/hook' })).webhook.url,
    ).toBe('https://1.1.1.1/hook');
  });

  it('the other ways to set a URL are guarded too: PATCH /agents/me and a task webhookUrl', async () => {
    const agent = await createAgent(s, { deposit: '50' });
    const me = await call(s, agent, 'PATCH', '/agents/me', { webhookUrl: 'http://127.0.0.1:9/x' });
    expect(me.statusCode).toBe(400);
    expect(me.json().details[0].path).toBe('webhookUrl');
    const balance = (await agentMe(s, agent)).balance;
    const task = await call(s, agent, 'POST', '/tasks', {
      title: 'Photo',
      description: 'Of the town hall',
      reward: '10',
      webhookUrl: 'http://169.254.169.254/x',
    });
    expect(task.statusCode).toBe(400);
    expect(task.json().details[0].path).toBe('webhookUrl');
    // Nothing half-done: no task, no money moved.
    expect(await agentMe(s, agent)).toMatchObject({ balance, taskCount: 0 });
  });

  it.each([
    'ftp://example.com/x',
    'javascript:alert(1)',
    'file:///etc/passwd',
    'not a url',
    'https://user:pw@example.com/',
  ])('a URL like %j is 400 on both apps', async (url) => {
    for (const app of [t, s]) {
      const agent: TestAgent = await createAgent(app);
      const res = await call(app, agent, 'PATCH', '/agents/webhooks', { url });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({ error: 'Validation failed', details: [{ path: 'url' }] });
    }
  });

  it('a delivery whose host resolves privately at send time is failed without retries', async () => {
    // Set while the name resolved publicly; by delivery time it points inside (DNS rebinding).
    const agent = await createAgent(s, { deposit: '50' });
    dns.answers.set('rebind.example', ['93.184.216.34']);
    await ok(s, agent, 'PATCH', '/agents/webhooks', { url: 'http://rebind.example/hook' });
    await createTask(s, agent);
    dns.answers.set('rebind.example', ['127.0.0.1']);

    // A delivery recorded for a loopback receiver while private targets were allowed.
    const other = await createAgent(t, { deposit: '50' });
    await ok(t, other, 'PATCH', '/agents/webhooks', { url: receiver.url });
    await createTask(t, other);

    expect(await dispatchDueDeliveries(s.ctx, s.ctx.webhooks)).toBe(2);
    expect(receiver.requests).toHaveLength(0);
    const [rebound] = (await ok(s, agent, 'GET', '/agents/webhooks/deliveries')).deliveries;
    expect(rebound).toMatchObject({
      status: 'failed',
      attempts: 1,
      lastStatusCode: null,
      lastError: 'refused: rebind.example resolves to 127.0.0.1, which is not a public address',
      nextAttemptAt: null,
    });
    const [loopback] = (await ok(s, other, 'GET', '/agents/webhooks/deliveries')).deliveries;
    expect(loopback).toMatchObject({
      status: 'failed',
      attempts: 1,
      lastError: expect.stringMatching(/^refused: /),
    });

    t.clock.advance(86_400_000);
    expect(await dispatchDueDeliveries(s.ctx, s.ctx.webhooks)).toBe(0);
    expect(receiver.requests).toHaveLength(0);

    // The test delivery is guarded the same way.
    const test = await ok(s, other, 'POST', '/agents/webhooks');
    expect(test).toEqual({
      success: false,
      statusCode: 0,
      message: expect.stringMatching(/not a public address/),
    });
    expect(receiver.requests).toHaveLength(0);
  });

  it('a delivery connects to the address it checked, not to what a second look-up answers', async () => {
    // DNS rebinding: the check's look-up answers a public address, any later look-up (the one
    // an HTTP client would make to connect) answers loopback, where a receiver is listening.
    const host = 'rebind-late.example';
    dns.answers.set(host, ['192.0.2.1']);
    const secondLookup = vi.spyOn(systemDns, 'lookup').mockImplementation(((
      hostname: string,
      options: unknown,
      callback?: (...args: unknown[]) => void,
    ) => {
      const done = (typeof options === 'function' ? options : callback) as (...args: unknown[]) => void;
      if (hostname !== host) return done(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }));
      if (typeof options === 'object' && options && (options as { all?: boolean }).all) {
        return done(null, [{ address: '127.0.0.1', family: 4 }]);
      }
      return done(null, '127.0.0.1', 4);
    }) as unknown as typeof systemDns.lookup);
    try {
      const agent = await createAgent(s, { deposit: '50' });
      const port = new URL(receiver.url).port;
      await ok(s, agent, 'PATCH', '/agents/webhooks', { url: `http://${host}:${port}/hooks` });
      const before = receiver.requests.length;
      await createTask(s, agent);
      expect(await dispatchDueDeliveries(s.ctx, s.ctx.webhooks)).toBe(1);
      expect(receiver.requests).toHaveLength(before);
      const [delivery] = (await ok(s, agent, 'GET', '/agents/webhooks/deliveries')).deliveries;
      // 192.0.2.1 (TEST-NET-1) answers nothing: the attempt fails and will be retried.
      expect(delivery).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null });
      expect(secondLookup).not.toHaveBeenCalledWith(host, expect.anything(), expect.anything());
    } finally {
      secondLookup.mockRestore();
    }
  });
});
