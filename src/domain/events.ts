import { insertDelivery, webhookTarget } from '../db/repositories/deliveries.js';
import { insertEvent } from '../db/repositories/events.js';
import type { Executor } from '../db/repositories/executor.js';
import { newId } from './ids.js';

/** The webhook events of the spec, plus task.expired from the decisions. */
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
  'payment.sent',
  'refund.processed',
  'rating.received',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

// Annotated so the literal type survives in object literals (response schemas want 'TON').
export const CURRENCY: 'TON' = 'TON';

/**
 * Writes an event to the outbox inside the caller's transaction, so it exists exactly when the
 * change that caused it committed. Delivery reads the outbox afterwards.
 */
export async function recordEvent(
  trx: Executor,
  event: {
    agentId: string;
    taskId: string | null;
    type: EventType;
    data: Record<string, unknown>;
    now: Date;
  },
): Promise<void> {
  await insertEvent(trx, {
    id: newId('event', event.now.getTime()),
    agent_id: event.agentId,
    task_id: event.taskId,
    type: event.type,
    data_json: JSON.stringify(event.data),
    created_at: event.now.toISOString(),
  });
}

/** Workers appear in events as {id, name}. */
export function workerRef(worker: { id: string; first_name: string; last_name: string | null }) {
  return { id: worker.id, name: [worker.first_name, worker.last_name].filter(Boolean).join(' ') };
}
