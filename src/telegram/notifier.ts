import type { Executor, NotificationRow } from '../db/repositories/executor.js';
import {
  claimNotification,
  findNotificationData,
  findTaskLabels,
  finishNotification,
  listDueNotifications,
  markNotificationRecorded,
} from '../db/repositories/notifications.js';
import type { DomainContext } from '../domain/context.js';
import { type BotMessage, renderNotification, type TaskLabel } from './messages.js';

/** How one send went; `final` when no retry can help (the user blocked the bot, a bad request). */
export type SendResult = { ok: true } | { ok: false; error: string; final?: boolean; retryAfterMs?: number };

/** Delivers one message to one Telegram chat (grammy in bot.ts; tests may wrap it to inject faults). */
export interface TelegramSender {
  /** A send gives up after this long, so a claimed row's lease always outlives its attempt. */
  readonly timeoutMs: number;
  send(chatId: string, message: BotMessage): Promise<SendResult>;
}

/** The first attempt plus 3 retries, waiting longer each time; then the notification is failed. */
export const MAX_ATTEMPTS = 4;
export const RETRY_DELAYS_MS = [30_000, 120_000, 600_000] as const;
/** Telegram allows about 30 messages a second per bot; a batch stays well inside that. */
const BATCH = 50;
const PARALLEL = 8;

type DueNotification = NotificationRow & { telegram_id: string };

/**
 * The sending side of the bot's outbox, run by the jobs loop (never by a request): every due
 * notification is claimed (compare-and-set, so one instance sends it), sent, and marked sent, or
 * rescheduled with growing delays, or failed. With no bot (`sender` null) due notifications are
 * marked `recorded` instead, for the operator to read. Returns how many were due.
 */
export async function sendDueNotifications(
  ctx: DomainContext,
  sender: TelegramSender | null,
): Promise<number> {
  const now = ctx.clock.now().toISOString();
  const due = (await listDueNotifications(ctx.db, now, BATCH)) as DueNotification[];
  if (!sender) {
    for (const row of due) await markNotificationRecorded(ctx.db, row, now);
    return due.length;
  }
  for (let i = 0; i < due.length; i += PARALLEL) {
    await Promise.all(due.slice(i, i + PARALLEL).map((row) => attemptNotification(ctx, sender, row)));
  }
  return due.length;
}

async function attemptNotification(ctx: DomainContext, sender: TelegramSender, row: DueNotification) {
  const started = ctx.clock.now();
  const lease = new Date(started.getTime() + sender.timeoutMs + 30_000).toISOString();
  if (!(await claimNotification(ctx.db, row, lease, started.toISOString()))) return;
  // Claimed rows take no more batched messages, so the data read now is what gets sent.
  const dataJson = (await findNotificationData(ctx.db, row.id)) ?? row.data_json;
  const labels = await labelsFor(ctx.db, [row]);
  const message = renderStored(row.kind, dataJson, labels.get(row.task_id ?? ''));
  const result = await sender
    .send(row.telegram_id, message)
    .catch(
      (error: unknown): SendResult => ({ ok: false, error: `send failed: ${(error as Error).message}` }),
    );
  const attempts = row.attempts + 1;
  const now = ctx.clock.now();
  if (result.ok) {
    await finishNotification(ctx.db, row.id, {
      status: 'sent',
      nextAttemptAt: now.toISOString(),
      error: null,
      now: now.toISOString(),
    });
    return;
  }
  const failed = result.final === true || attempts >= MAX_ATTEMPTS;
  const delayMs = Math.max(RETRY_DELAYS_MS[attempts - 1] ?? 0, result.retryAfterMs ?? 0);
  await finishNotification(ctx.db, row.id, {
    status: failed ? 'failed' : 'pending',
    nextAttemptAt: new Date(now.getTime() + (failed ? 0 : delayMs)).toISOString(),
    error: result.error,
    now: now.toISOString(),
  });
}

/** The text a stored notification becomes (what is sent, and what the operator sees). */
export function renderStored(kind: NotificationRow['kind'], dataJson: string, label?: TaskLabel): BotMessage {
  let data: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(dataJson);
    if (parsed && typeof parsed === 'object') data = parsed as Record<string, unknown>;
  } catch {
    // Rows are written by notifyWorker as JSON; a broken one still renders from the labels.
  }
  return renderNotification(kind, data, label);
}

/** The current title and agent name of each row's task, in one query. */
export async function labelsFor(
  db: Executor,
  rows: { task_id: string | null }[],
): Promise<Map<string, TaskLabel>> {
  const ids = [...new Set(rows.map((r) => r.task_id).filter((id): id is string => id !== null))];
  const found = await findTaskLabels(db, ids);
  return new Map(found.map((t) => [t.id, { title: t.title, agentName: t.agent_name }]));
}
