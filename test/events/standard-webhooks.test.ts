import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dispatchDueDeliveries, RETRY_DELAYS_MS } from '../../src/outbox/webhookDeliveries.js';
import { ok } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, createTask } from '../helpers/fixtures.js';
import { Receiver } from '../helpers/receiver.js';

type Verify = (rawBody: Buffer, headers: IncomingHttpHeaders, apiKey: string, nowSeconds?: number) => unknown;

/**
 * The verification snippet of docs/webhooks.md, taken from the page itself (so the documented
 * code is the tested code): its import line is replaced by the same functions passed in.
 */
function documentedVerifier(): Verify {
  const page = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');
  const block = /<!-- verify-webhook[^>]*-->\s*```js\n([\s\S]*?)```/.exec(page)?.[1];
  if (!block) throw new Error('docs/webhooks.md lost its verification snippet');
  const body = block.replace(/^import .*$/m, '');
  return new Function('createHmac', 'timingSafeEqual', 'Buffer', `${body}\nreturn verifyWebhook;`)(
    createHmac,
    timingSafeEqual,
    Buffer,
  ) as Verify;
}

describe('Standard Webhooks headers', () => {
  let t: TestApp;
  let receiver: Receiver;
  const verify = documentedVerifier();
  beforeEach(async () => {
    t = await createTestApp();
    receiver = await Receiver.start();
  });
  afterEach(async () => {
    await receiver.close();
    await t.close();
  });

  const nowSeconds = () => Math.floor(t.clock.now().getTime() / 1000);

  it('a real delivery verifies with the documented snippet; tampered, re-signed or stale ones do not', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    await ok(t, agent, 'PATCH', '/agents/webhooks', { url: receiver.url });
    const task = await createTask(t, agent);
    await dispatchDueDeliveries(t.ctx, t.ctx.webhooks);
    const [request] = receiver.requests;
    expect(request).toBeDefined();
    const { headers, rawBody } = request!;
    expect(headers['webhook-id']).toBe(headers['x-service-delivery-id']);
    expect(headers['webhook-timestamp']).toBe(String(nowSeconds()));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(headers['x-service-signature']).toMatch(/^[0-9a-f]{64}$/);

    const event = verify(rawBody, headers, agent.apiKey, nowSeconds()) as {
      event: string;
      data: { taskId: string };
    };
    expect(event.event).toBe('task.funded');
    expect(event.data.taskId).toBe(task.id);
    // Five minutes either way is accepted; beyond, the same request is refused as a replay.
    expect(() => verify(rawBody, headers, agent.apiKey, nowSeconds() + 300)).not.toThrow();
    expect(() => verify(rawBody, headers, agent.apiKey, nowSeconds() + 301)).toThrow(/stale/);
    expect(() => verify(rawBody, headers, agent.apiKey, nowSeconds() - 301)).toThrow(/stale/);
    // A changed body, id or timestamp, or another key, breaks the signature.
    expect(() => verify(Buffer.from(`${rawBody} `), headers, agent.apiKey, nowSeconds())).toThrow(
      /bad signature/,
    );
    expect(() =>
      verify(rawBody, { ...headers, 'webhook-id': 'dlv_other' }, agent.apiKey, nowSeconds()),
    ).toThrow(/bad signature/);
    const later = String(nowSeconds() + 60);
    expect(() =>
      verify(rawBody, { ...headers, 'webhook-timestamp': later }, agent.apiKey, nowSeconds()),
    ).toThrow(/bad signature/);
    const other = await createAgent(t);
    expect(() => verify(rawBody, headers, other.apiKey, nowSeconds())).toThrow(/bad signature/);
    expect(() => verify(rawBody, { ...headers, 'webhook-signature': undefined }, agent.apiKey)).toThrow(
      /missing/,
    );
  });

  it('a retry keeps its webhook-id and is signed with its own, fresh timestamp', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    await ok(t, agent, 'PATCH', '/agents/webhooks', { url: receiver.url });
    await createTask(t, agent);
    receiver.respondWith(500);
    await dispatchDueDeliveries(t.ctx, t.ctx.webhooks);
    t.clock.advance(RETRY_DELAYS_MS[0]!);
    receiver.respondWith(200);
    await dispatchDueDeliveries(t.ctx, t.ctx.webhooks);
    const [first, retry] = receiver.requests;
    expect(retry).toBeDefined();
    expect(retry!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(Number(retry!.headers['webhook-timestamp']) - Number(first!.headers['webhook-timestamp'])).toBe(
      RETRY_DELAYS_MS[0]! / 1000,
    );
    expect(retry!.rawBody.equals(first!.rawBody)).toBe(true);
    // The first attempt, captured and replayed now, is refused; the retry itself verifies.
    expect(() => verify(first!.rawBody, first!.headers, agent.apiKey, nowSeconds())).not.toThrow();
    t.clock.advance(301_000);
    expect(() => verify(first!.rawBody, first!.headers, agent.apiKey, nowSeconds())).toThrow(/stale/);
  });

  it('the key works with a Standard Webhooks library as whsec_ + base64(apiKey)', async () => {
    const agent = await createAgent(t);
    await ok(t, agent, 'PATCH', '/agents/webhooks', { url: receiver.url });
    await ok(t, agent, 'POST', '/agents/webhooks');
    const { headers, rawBody } = receiver.requests[0]!;
    // What a library does with a whsec_ secret: base64-decode it to the key bytes.
    const secret = `whsec_${Buffer.from(agent.apiKey).toString('base64')}`;
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const mac = createHmac('sha256', key)
      .update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${rawBody}`)
      .digest('base64');
    expect(headers['webhook-signature']).toBe(`v1,${mac}`);
  });
});
