import type { NotificationRow } from '../db/repositories/executor.js';
import { findNotificationData, listDueNotifications } from '../db/repositories/notifications.js';
import type { DomainContext } from '../domain/context.js';
import { labelsFor, offerReplacedBy } from '../domain/workers/notifications.js';
import {
  renderStored,
  type SendResult,
  type TelegramSender,
  withReplacedOffer,
} from '../telegram/notifier.js';
import { listedPolicy, type OutboxKind } from './kind.js';
import { runDue } from './runner.js';

/** The first attempt plus 3 retries, waiting longer each time; then the notification is failed. */
export const RETRY_DELAYS_MS = [30_000, 120_000, 600_000] as const;
/**
 * Counted at the claim: a claimed row takes no more batched chat messages (see notifyWorker).
 * Telegram allows about 30 messages a second per bot; a batch stays well inside that.
 */
const POLICY = listedPolicy(RETRY_DELAYS_MS, { countAttempt: 'claimed', batch: 50, parallel: 8 });
export const MAX_ATTEMPTS = POLICY.maxAttempts;

type DueNotification = NotificationRow & {
  telegram_id: string;
  language: string | null;
  timezone: string | null;
};

/**
 * Workers' Telegram notifications as outbox work (never sent by a request): each due one is
 * rendered from its data as of its claim and sent through the bot. With no bot (`sender` null)
 * due notifications are marked `recorded` instead, for the operator to read.
 */
export function notificationKind(
  ctx: DomainContext,
  sender: TelegramSender | null,
): OutboxKind<DueNotification> {
  return {
    name: 'telegram notification',
    table: 'notifications',
    policy: POLICY,
    doneStatus: 'sent',
    attemptTimeoutMs: sender?.timeoutMs ?? 0,
    listDue: (db, now, limit) => listDueNotifications(db, now, limit) as Promise<DueNotification[]>,
    ...(sender ? {} : { settleUnattemptedAs: 'recorded' }),
    async attempt(row) {
      if (!sender) throw new Error('no bot to send with');
      // Claimed rows take no more batched messages, so the data read now is what gets sent.
      const dataJson = (await findNotificationData(ctx.db, row.id)) ?? row.data_json;
      const labels = await labelsFor(ctx.db, [row]);
      const label = labels.get(row.task_id ?? '');
      const offer = await offerReplacedBy(ctx.db, row);
      // In the worker's language and zone as they are now, not when the event happened.
      const reader = { language: row.language, timeZone: row.timezone };
      const message = withReplacedOffer(
        renderStored(row.kind, dataJson, label, reader),
        offer,
        label,
        reader,
      );
      const result = await sender
        .send(row.telegram_id, message)
        .catch(
          (error: unknown): SendResult => ({ ok: false, error: `send failed: ${(error as Error).message}` }),
        );
      const columns = {
        sent_at: result.ok ? ctx.clock.now().toISOString() : null,
        // The sent message's id, so a withdrawn offer can rewrite it without its buttons.
        ...(result.ok && result.messageId !== undefined ? { telegram_message_id: result.messageId } : {}),
      };
      return result.ok ? { ok: true, columns } : { ...result, columns };
    },
  };
}

/** One pass of the bot's outbox (the background job's work); returns how many were due. */
export function sendDueNotifications(ctx: DomainContext, sender: TelegramSender | null): Promise<number> {
  return runDue(ctx, notificationKind(ctx, sender));
}
