import { verifyWebhook, WebhookVerificationError } from '@handoff/sdk';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dispatchDueDeliveries } from '../../src/outbox/webhookDeliveries.js';
import { ok } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, createTask } from '../helpers/fixtures.js';
import { Receiver } from '../helpers/receiver.js';

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

it('verifyWebhook accepts a real delivery and refuses a tampered, stale or unsigned one', async () => {
  const agent = await createAgent(t, { deposit: '20' });
  await ok(t, agent, 'PATCH', '/agents/webhooks', { url: receiver.url });
  const task = await createTask(t, agent, { reward: '1' });
  await dispatchDueDeliveries(t.ctx, t.ctx.webhooks);
  const delivery = receiver.requests.find((r) => r.rawBody.toString().includes(task.id))!;
  expect(delivery).toBeDefined();
  const now = t.clock.now();
  const input = { body: delivery.rawBody, headers: delivery.headers, secret: agent.apiKey, now };

  const event = verifyWebhook<{ taskId: string }>(input);
  expect(event).toMatchObject({ event: 'task.funded', data: { taskId: task.id } });
  expect(verifyWebhook({ ...input, body: delivery.rawBody.toString('utf8') }).event).toBe('task.funded');

  const tampered = Buffer.from(delivery.rawBody.toString().replace('"task.funded"', '"task.completed"'));
  expect(() => verifyWebhook({ ...input, body: tampered })).toThrow(/signature does not match/);
  expect(() => verifyWebhook({ ...input, secret: `${agent.apiKey}x` })).toThrow(WebhookVerificationError);
  const unsigned = { ...delivery.headers, 'x-service-signature': undefined };
  expect(() => verifyWebhook({ ...input, headers: unsigned })).toThrow(/missing X-Service-Signature/);
  const shortSignature = { ...delivery.headers, 'x-service-signature': 'abc' };
  expect(() => verifyWebhook({ ...input, headers: shortSignature })).toThrow(/signature does not match/);
  const movedTimestamp = {
    ...delivery.headers,
    'x-service-timestamp': new Date(now.getTime() + 1000).toISOString(),
  };
  expect(() => verifyWebhook({ ...input, headers: movedTimestamp })).toThrow(
    /differs from the signed timestamp/,
  );

  const eleventhMinute = new Date(now.getTime() + 11 * 60_000);
  expect(() => verifyWebhook({ ...input, now: eleventhMinute })).toThrow(/outside the 600 s tolerance/);
  expect(verifyWebhook({ ...input, now: eleventhMinute, toleranceSeconds: 3600 }).event).toBe('task.funded');
});
