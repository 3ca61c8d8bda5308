import { verifyWebhook, WebhookVerificationError } from '@handoff/sdk';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dispatchDueDeliveries } from '../../src/outbox/webhookDeliveries.js';
import { ok } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, createTask, type TestAgent } from '../helpers/fixtures.js';
import { type ReceivedRequest, Receiver } from '../helpers/receiver.js';

let t: TestApp;
let receiver: Receiver;

beforeAll(async () => {
  t = await createTestApp();
  receiver = await Receiver.start();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

/** A task's task.funded delivery, really sent by the outbox to the receiver. */
async function delivered(agent: TestAgent): Promise<{ taskId: string; request: ReceivedRequest }> {
  const task = await createTask(t, agent, { reward: '1' });
  await dispatchDueDeliveries(t.ctx, t.ctx.webhooks);
  const request = receiver.requests.findLast((r) => r.rawBody.toString().includes(task.id))!;
  expect(request).toBeDefined();
  return { taskId: task.id, request };
}

const withHeaders = (request: ReceivedRequest, headers: Record<string, string | undefined>) => ({
  ...request.headers,
  ...headers,
});

it('verifies the Standard Webhooks headers of a real delivery and refuses tampered, stale and replayed ones', async () => {
  const agent = await createAgent(t, { deposit: '20' });
  await ok(t, agent, 'PATCH', '/agents/webhooks', { url: receiver.url });
  const { taskId, request } = await delivered(agent);
  const now = t.clock.now();
  const input = { body: request.rawBody, headers: request.headers, secret: agent.apiKey, now };
  const id = request.headers['webhook-id'] as string;
  const timestamp = request.headers['webhook-timestamp'] as string;
  const signature = request.headers['webhook-signature'] as string;
  expect(timestamp).toBe(String(Math.floor(now.getTime() / 1000)));

  expect(verifyWebhook<{ taskId: string }>(input)).toMatchObject({ event: 'task.funded', data: { taskId } });
  expect(verifyWebhook({ ...input, body: request.rawBody.toString('utf8') }).event).toBe('task.funded');
  expect(
    verifyWebhook({ ...input, headers: new Headers(request.headers as Record<string, string>) }).event,
  ).toBe('task.funded');
  // The secret as Standard Webhooks libraries write it: whsec_ + base64 of the key bytes.
  const whsec = `whsec_${Buffer.from(agent.apiKey).toString('base64')}`;
  expect(verifyWebhook({ ...input, secret: whsec }).event).toBe('task.funded');
  // Several signatures (a key rotation, a future version): one valid v1 is enough.
  const several = `v2,${Buffer.alloc(32).toString('base64')} v1,${Buffer.alloc(32, 1).toString('base64')} ${signature}`;
  expect(
    verifyWebhook({ ...input, headers: withHeaders(request, { 'webhook-signature': several }) }).event,
  ).toBe('task.funded');

  // Tampered: the body, the id or the timestamp changed, a wrong key, a signature of another version.
  const tampered = Buffer.from(request.rawBody.toString().replace('"task.funded"', '"task.completed"'));
  expect(() => verifyWebhook({ ...input, body: tampered })).toThrow(/signature does not match/);
  const otherId = withHeaders(request, { 'webhook-id': `${id}x` });
  expect(() => verifyWebhook({ ...input, headers: otherId })).toThrow(/signature does not match/);
  const moved = withHeaders(request, { 'webhook-timestamp': String(Number(timestamp) + 1) });
  expect(() => verifyWebhook({ ...input, headers: moved })).toThrow(/signature does not match/);
  expect(() => verifyWebhook({ ...input, secret: `${agent.apiKey}x` })).toThrow(WebhookVerificationError);
  const v2Only = withHeaders(request, { 'webhook-signature': signature.replace(/^v1,/, 'v2,') });
  expect(() => verifyWebhook({ ...input, headers: v2Only })).toThrow(/signature does not match/);
  const notBase64 = withHeaders(request, { 'webhook-signature': 'v1,***' });
  expect(() => verifyWebhook({ ...input, headers: notBase64 })).toThrow(/signature does not match/);
  // The spec's signature alone does not pass the default (Standard Webhooks) check: no downgrade.
  const specOnly = withHeaders(request, {
    'webhook-id': undefined,
    'webhook-timestamp': undefined,
    'webhook-signature': undefined,
  });
  expect(() => verifyWebhook({ ...input, headers: specOnly })).toThrow(/missing webhook-id/);
  const notSeconds = withHeaders(request, { 'webhook-timestamp': new Date(now).toISOString() });
  expect(() => verifyWebhook({ ...input, headers: notSeconds })).toThrow(/not Unix seconds/);

  // Stale or future: the captured request replayed 6 minutes later is refused, signature and all.
  const later = new Date(now.getTime() + 6 * 60_000);
  expect(() => verifyWebhook({ ...input, now: later })).toThrow(/outside the 300 s tolerance/);
  const earlier = new Date(now.getTime() - 6 * 60_000);
  expect(() => verifyWebhook({ ...input, now: earlier })).toThrow(/outside the 300 s tolerance/);
  expect(verifyWebhook({ ...input, now: later, toleranceSeconds: 600 }).event).toBe('task.funded');

  // Replayed within the tolerance: refused once its webhook-id was processed.
  const processed = new Set<string>();
  const seen = (webhookId: string) => processed.has(webhookId);
  expect(verifyWebhook({ ...input, seen }).event).toBe('task.funded');
  processed.add(id);
  expect(() => verifyWebhook({ ...input, seen })).toThrow(/already processed \(replay\)/);
});

it('accepts a real retry, signed anew with its own timestamp and the same webhook-id', async () => {
  const agent = await createAgent(t, { deposit: '20' });
  await ok(t, agent, 'PATCH', '/agents/webhooks', { url: receiver.url });
  receiver.failNext(1, 500);
  const { request: first } = await delivered(agent);
  t.clock.advance(11_000);
  await dispatchDueDeliveries(t.ctx, t.ctx.webhooks);
  const retry = receiver.requests.at(-1)!;
  expect(retry.rawBody.equals(first.rawBody)).toBe(true);
  expect(retry.headers['webhook-id']).toBe(first.headers['webhook-id']);
  expect(Number(retry.headers['webhook-timestamp'])).toBe(Number(first.headers['webhook-timestamp']) + 11);
  expect(retry.headers['webhook-signature']).not.toBe(first.headers['webhook-signature']);
  const now = t.clock.now();
  const input = { body: retry.rawBody, headers: retry.headers, secret: agent.apiKey, now };
  expect(verifyWebhook(input).event).toBe('task.funded');
  // The first attempt's headers on the retry's time still verify (11 s old), but not once the
  // receiver processed that delivery.
  const firstAgain = { ...input, headers: first.headers };
  expect(verifyWebhook(firstAgain).event).toBe('task.funded');
  expect(() => verifyWebhook({ ...firstAgain, seen: (id) => id === first.headers['webhook-id'] })).toThrow(
    /replay/,
  );
});

it('verifies the spec’s X-Service-Signature with scheme "service"', async () => {
  const agent = await createAgent(t, { deposit: '20' });
  await ok(t, agent, 'PATCH', '/agents/webhooks', { url: receiver.url });
  const { request } = await delivered(agent);
  const now = t.clock.now();
  const input = {
    body: request.rawBody,
    headers: request.headers,
    secret: agent.apiKey,
    now,
    scheme: 'service' as const,
  };
  expect(verifyWebhook(input).event).toBe('task.funded');
  const tampered = Buffer.from(request.rawBody.toString().replace('"task.funded"', '"task.completed"'));
  expect(() => verifyWebhook({ ...input, body: tampered })).toThrow(/signature does not match/);
  const unsigned = withHeaders(request, { 'x-service-signature': undefined });
  expect(() => verifyWebhook({ ...input, headers: unsigned })).toThrow(/missing X-Service-Signature/);
  const short = withHeaders(request, { 'x-service-signature': 'abc' });
  expect(() => verifyWebhook({ ...input, headers: short })).toThrow(/signature does not match/);
  const movedTimestamp = withHeaders(request, {
    'x-service-timestamp': new Date(now.getTime() + 1000).toISOString(),
  });
  expect(() => verifyWebhook({ ...input, headers: movedTimestamp })).toThrow(
    /differs from the signed timestamp/,
  );
  const eleventhMinute = new Date(now.getTime() + 11 * 60_000);
  expect(() => verifyWebhook({ ...input, now: eleventhMinute })).toThrow(/outside the 600 s tolerance/);
  expect(verifyWebhook({ ...input, now: eleventhMinute, toleranceSeconds: 3600 }).event).toBe('task.funded');
});
