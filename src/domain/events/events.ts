import { insertDelivery, webhookTarget } from '../../db/repositories/deliveries.js';
import { insertEvent } from '../../db/repositories/events.js';
import type { Executor } from '../../db/repositories/executor.js';
import { newId } from '../ids.js';
import { traceFor } from './traceContext.js';
import { endpointOrigin } from './webhookUrl.js';

/** The webhook events of the spec, plus task.expired from the decisions and issue 25's disputes. */
export const EVENT_TYPES = [
  'application.received',
  'application.accepted',
  'application.rejected',
  'message.received',
  'offer.accepted',
  'offer.declined',
  'task.funded',
  'task.completed',
  'task.expired',
  'task.submitted',
  'task.review_reminder',
  'payment.sent',
  'refund.processed',
  'rating.received',
  'deposit.received',
  'webhook.endpoint_quarantined',
  'dispute.opened',
  'dispute.resolved',
  'task.partial_offered',
  'batch.created',
  'batch.completed',
  'task.rejected_by_review',
  'approval.approved',
  'approval.declined',
  'approval.expired',
  'approval.failed',
  'task.bonus_paid',
  'balance.low',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

// Annotated so the literal type survives in object literals (response schemas want 'TON').
export const CURRENCY: 'TON' = 'TON';

/**
 * Writes an event to the outbox inside the caller's transaction, so it exists exactly when the
 * change that caused it committed, together with its delivery to the webhook URL in force now
 * (the task's, else the agent's). The dispatcher sends deliveries after commit; a crash in
 * between loses nothing because the rows are already there.
 */
export async function recordEvent(
  trx: Executor,
  event: {
    agentId: string;
    taskId: string | null;
    type: EventType;
    data: Record<string, unknown>;
    now: Date;
    /**
     * The webhook URL in force, when the caller has just read the task and agent rows in this
     * transaction (task creation): saves the two look-ups. Left out, it is looked up.
     */
    webhookUrl?: string | null;
  },
): Promise<void> {
  const id = newId('event', event.now.getTime());
  const at = event.now.toISOString();
  await insertEvent(trx, {
    id,
    agent_id: event.agentId,
    task_id: event.taskId,
    type: event.type,
    data_json: eventJson(event.data, traceFor(trx, event.agentId)),
    created_at: at,
  });
  const url =
    event.webhookUrl !== undefined ? event.webhookUrl : await webhookTarget(trx, event.agentId, event.taskId);
  if (!url) return;
  await insertDelivery(trx, {
    id: newId('delivery', event.now.getTime()),
    event_id: id,
    agent_id: event.agentId,
    url,
    status: 'pending',
    attempts: 0,
    next_attempt_at: at,
    last_status_code: null,
    last_error: null,
    delivered_at: null,
    created_at: at,
    updated_at: at,
    origin: endpointOrigin(url),
    claimed_until: null,
  });
}

/**
 * Where an event keeps the `traceparent` of the request that caused it (no column of its own,
 * docs/decisions/metrics-logs-traces.md): a key no event's data has, taken out again
 * before the data is sent (`eventPayload`), so webhook bodies never show it.
 */
export const TRACE_KEY = '$traceparent';

function eventJson(data: Record<string, unknown>, traceparent: string | undefined): string {
  return JSON.stringify(traceparent ? { ...data, [TRACE_KEY]: traceparent } : data);
}

/** An event's stored data as sent (without its trace), and the trace it carries, if any. */
export function eventPayload(dataJson: string): { data: Record<string, unknown>; traceparent?: string } {
  const data = JSON.parse(dataJson) as Record<string, unknown>;
  const traceparent = data[TRACE_KEY];
  if (typeof traceparent !== 'string') return { data };
  delete data[TRACE_KEY];
  return { data, traceparent };
}

/** Workers appear in events as {id, name}. */
export function workerRef(worker: { id: string; first_name: string; last_name: string | null }) {
  return { id: worker.id, name: [worker.first_name, worker.last_name].filter(Boolean).join(' ') };
}
