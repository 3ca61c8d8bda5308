import { Type } from 'typebox';
import type { NotificationRow } from '../../db/repositories/executor.js';
import type { BotMessage } from '../../telegram/messages.js';
import { Limit, Nullable, nameSchemas, Timestamp } from './common.js';

const STATUSES = ['pending', 'sent', 'failed', 'recorded'] as const;
const KINDS = [
  'offer',
  'application_accepted',
  'application_rejected',
  'batch_full',
  'message',
  'payment_sent',
  'payment_failed',
  'task_expired',
  'offer_withdrawn',
  'task_cancelled',
  'dispute_opened',
  'dispute_resolved',
  'submission_received',
  'revision_requested',
  'review_reminder',
  'auto_released',
  'partial_offered',
  'bonus_paid',
] as const;

export const NotificationQuery = Type.Object({
  status: Type.Optional(Type.Enum(STATUSES)),
  workerId: Type.Optional(Type.String({ maxLength: 100 })),
  cursor: Type.Optional(Type.String({ maxLength: 400 })),
  limit: Limit(50, 100),
});

export const Notification = Type.Object({
  id: Type.String(),
  workerId: Type.String(),
  workerName: Type.Optional(Type.String({ description: 'The worker’s first name, from Telegram' })),
  chatId: Type.String({ description: 'The Telegram chat (the worker’s Telegram user id)' }),
  taskId: Nullable(Type.String()),
  kind: Type.Enum(KINDS),
  text: Type.String({ description: 'The message in Telegram HTML, as sent (or as it would be sent)' }),
  buttons: Type.Array(Type.Array(Type.Object({ text: Type.String(), callbackData: Type.String() }))),
  status: Type.Enum(STATUSES, {
    description: 'pending, sent, failed after the retries, or recorded (no bot token: not sent)',
  }),
  attempts: Type.Integer(),
  lastError: Nullable(Type.String()),
  nextAttemptAt: Timestamp,
  sentAt: Nullable(Timestamp),
  createdAt: Timestamp,
});

export function notificationView(
  row: NotificationRow & { telegram_id: string; worker_first_name?: string },
  message: BotMessage,
) {
  return {
    id: row.id,
    workerId: row.worker_id,
    ...(row.worker_first_name ? { workerName: row.worker_first_name } : {}),
    chatId: row.telegram_id,
    taskId: row.task_id,
    kind: row.kind,
    text: message.text,
    buttons: message.buttons,
    status: row.status,
    attempts: row.attempts,
    lastError: row.last_error,
    nextAttemptAt: row.next_attempt_at,
    sentAt: row.sent_at,
    createdAt: row.created_at,
  };
}

nameSchemas({ Notification });
