import { randomBytes } from 'node:crypto';
import { findAgent, updateAgentProfile } from '../../db/repositories/agents.js';
import { findSigningKey } from '../../db/repositories/apiKeys.js';
import {
  findDelivery,
  listAgentDeliveries,
  requeueDelivery,
  webhookTarget,
} from '../../db/repositories/deliveries.js';
import { findEvent } from '../../db/repositories/events.js';
import type { DeliveryRow } from '../../db/repositories/executor.js';
import { postWebhook } from '../../events/dispatcher.js';
import { decryptApiKey } from '../agents/apiKeys.js';
import { isLiveAgent } from '../agents/testMode.js';
import type { DomainContext } from '../context.js';
import { decodePosition, page, positionCursor } from '../cursor.js';
import { assertInvariant, conflict, notFound } from '../errors.js';
import { isIdOf } from '../ids.js';
import { traceFor } from './traceContext.js';
import { checkWebhookTarget, endpointOrigin } from './webhookUrl.js';

/** PATCH /agents/webhooks: sets the agent's webhook URL; null turns webhooks off. */
export async function setAgentWebhook(ctx: DomainContext, agentId: string, url: string | null) {
  const clean = url === null ? null : await checkWebhookTarget('url', url, ctx.webhooks);
  const agent = await updateAgentProfile(
    ctx.db,
    agentId,
    { webhook_url: clean },
    ctx.clock.now().toISOString(),
  );
  if (!agent) throw notFound('Agent');
  return agent;
}

/** POST /agents/webhooks: one signed test delivery to the agent's URL, answered with its outcome. */
export async function sendTestWebhook(ctx: DomainContext, agentId: string) {
  const agent = await findAgent(ctx.db, agentId);
  if (!agent) throw notFound('Agent');
  if (!agent.webhook_url)
    throw conflict('No webhook URL is configured; set one with PATCH /agents/webhooks first');
  // Webhooks are signed with the agent's newest live key; an owner may have revoked them all.
  const key = await findSigningKey(ctx.db, agentId);
  if (!key) throw conflict('The agent has no live API key to sign webhooks with; create a key first');
  const now = ctx.clock.now().toISOString();
  const outcome = await postWebhook(
    agent.webhook_url,
    {
      event: 'webhook.test',
      timestamp: now,
      livemode: isLiveAgent(agent),
      data: { agentId, message: 'This is a test delivery from Handoff' },
    },
    decryptApiKey(key.key_ciphertext, ctx.secretKey),
    `dlv_test_${randomBytes(8).toString('hex')}`,
    ctx.webhooks,
    ctx.clock.now(),
    // Sent while the request is served: it carries the caller's trace.
    { traceparent: traceFor(ctx.db, agentId) },
  );
  return {
    success: outcome.ok,
    statusCode: outcome.statusCode ?? 0,
    message: outcome.ok
      ? `Delivered to ${agent.webhook_url}: the receiver answered HTTP ${outcome.statusCode}`
      : `Not delivered to ${agent.webhook_url}: ${outcome.error}`,
  };
}

export async function listDeliveries(
  ctx: DomainContext,
  agentId: string,
  query: { status?: DeliveryRow['status']; cursor?: string; limit: number },
) {
  const rows = await listAgentDeliveries(
    ctx.db,
    agentId,
    query.status,
    decodePosition(query.cursor),
    query.limit + 1,
  );
  return page(rows, query.limit, positionCursor);
}

/**
 * Puts a failed delivery back in the queue with its original id (receivers de-duplicate on
 * X-Service-Delivery-Id), to the URL in force now: the task's, else the agent's.
 */
export async function redeliver(ctx: DomainContext, agentId: string, deliveryId: string) {
  const delivery = isIdOf('delivery', deliveryId) ? await findDelivery(ctx.db, deliveryId) : undefined;
  // Another agent's delivery is answered as one that does not exist, so an id cannot be probed.
  if (!delivery || delivery.agent_id !== agentId) throw notFound('Delivery');
  if (delivery.status !== 'failed') {
    throw conflict(`Only failed deliveries can be redelivered; this one is ${delivery.status}`, {
      currentStatus: delivery.status,
    });
  }
  const event = await findEvent(ctx.db, delivery.event_id);
  assertInvariant(event, 'a delivery has its event');
  const url = await webhookTarget(ctx.db, agentId, event.task_id);
  if (!url) throw conflict('No webhook URL is configured; set one with PATCH /agents/webhooks first');
  const now = ctx.clock.now().toISOString();
  const requeued = await requeueDelivery(ctx.db, delivery.id, url, endpointOrigin(url), now);
  if (!requeued) throw conflict('This delivery was redelivered already');
  return {
    ...requeued,
    event_type: event.type,
    event_task_id: event.task_id,
    event_data_json: event.data_json,
    event_created_at: event.created_at,
  };
}
