import type { NotificationKind } from '../db/schema.js';
import { assertInvariant } from '../domain/errors.js';
import { clipText } from '../domain/text.js';
import { botAmount, botText, botTime, DEFAULT_READER, type Reader } from './i18n.js';

/**
 * The bot's texts, in Telegram's HTML parse mode. Everything users wrote (task titles, agent
 * names, chat previews) is escaped and clipped, so a title like "<b>" shows as typed and no
 * text can outgrow Telegram's 4096-character limit.
 */

/** One inline button that sends `callbackData` back to the bot when pressed. */
export interface InlineButton {
  text: string;
  callbackData: string;
}

export interface BotMessage {
  /** Telegram HTML (parse_mode "HTML"). */
  text: string;
  /** Rows of inline buttons; empty for none. */
  buttons: InlineButton[][];
  /** The task a last "Open in Handoff" button opens in the Mini App (a startapp deep link). */
  openTaskId?: string;
  /** That button's text, in the reader's language. */
  openLabel?: string;
  /** An earlier message of the bot to rewrite (without buttons) before this one is sent. */
  replaces?: { messageId: string; text: string };
}

/** What the stored data may lack: chat-message notifications name neither the task nor the agent. */
export interface TaskLabel {
  title: string | null;
  agentName: string | null;
}

/** Telegram's limit on callback data. */
export const MAX_CALLBACK_BYTES = 64;
const CLIP = { title: 200, agentName: 100, preview: 300 } as const;

export type OfferAction = 'accept' | 'decline';
const OFFER_CALLBACK = /^offer:(accept|decline):([A-Za-z0-9_]{1,50})$/;

export function offerCallbackData(action: OfferAction, taskId: string): string {
  const data = `offer:${action}:${taskId}`;
  assertInvariant(Buffer.byteLength(data) <= MAX_CALLBACK_BYTES, 'callback data fits in 64 bytes');
  return data;
}

/** The offer button a callback query came from, or null for data this bot never sent. */
export function parseOfferCallback(data: string): { action: OfferAction; taskId: string } | null {
  const match = OFFER_CALLBACK.exec(data);
  if (!match) return null;
  return { action: match[1] as OfferAction, taskId: match[2] as string };
}

/** Escapes text for Telegram's HTML parse mode (only &, < and > are special outside attributes). */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Telegram counts its limits in UTF-16 units. */
function clip(text: string, max: number): string {
  return clipText(text, max, { unit: 'utf16', ellipsis: '…' });
}

/** The currency of the amounts in `data` (issue 29): notifications written before it are TON. */
function unit(data: Record<string, unknown>): 'TON' | 'USDT' {
  return data.currency === 'USDT' ? 'USDT' : 'TON';
}

function field(data: Record<string, unknown>, key: string): string | null {
  const value = data[key];
  return typeof value === 'string' && value !== '' ? value : null;
}

/** The line a withdrawn offer's message ends with once its buttons are gone. */
export function offerWithdrawnLine(reader: Reader = DEFAULT_READER): string {
  return botText(reader.language, 'offer.withdrawnLine');
}

const OPENS_TASK: NotificationKind[] = [
  'offer',
  'application_accepted',
  'message',
  'payment_sent',
  'payment_failed',
  'dispute_opened',
  'dispute_resolved',
  'submission_received',
  'revision_requested',
  'review_reminder',
  'auto_released',
  'partial_offered',
  'bonus_paid',
];

/** The message a notification becomes, from its stored data and the task's current labels. */
export function renderNotification(
  kind: NotificationKind,
  data: Record<string, unknown>,
  label: TaskLabel = { title: null, agentName: null },
  reader: Reader = DEFAULT_READER,
): BotMessage {
  const t = (key: string, values?: Record<string, string | number>) => botText(reader.language, key, values);
  const title = `<b>${escapeHtml(clip(field(data, 'title') ?? label.title ?? t('common.yourTask'), CLIP.title))}</b>`;
  const agent = escapeHtml(
    clip(field(data, 'agentName') ?? label.agentName ?? t('common.theAgent'), CLIP.agentName),
  );
  const taskId = field(data, 'taskId') ?? '';
  const message = renderKind(kind, data, { title, agent, taskId, reader, t });
  // Messages about work the worker has or is offered open that task; about work gone, none.
  const opens = taskId !== '' && OPENS_TASK.includes(kind);
  return opens ? { ...message, openTaskId: taskId, openLabel: t('common.openInHandoff') } : message;
}

/** What every message of one notification is written with. */
interface Parts {
  title: string;
  agent: string;
  taskId: string;
  reader: Reader;
  t: (key: string, values?: Record<string, string | number>) => string;
}

/** "1 234,5 TON" / "12.5 USDT": an amount from the data in the reader's style with its currency, escaped. */
function amountOf(p: Parts, value: string | null, data: Record<string, unknown>): string {
  return escapeHtml(value === null ? `? ${unit(data)}` : botAmount(p.reader.language, value, unit(data)));
}

/** A moment from the data in the reader's zone (named), escaped; null when the data has none. */
function timeOf(p: Parts, value: string | null): string | null {
  return value === null ? null : escapeHtml(botTime(p.reader, value));
}

function renderKind(kind: NotificationKind, data: Record<string, unknown>, p: Parts): BotMessage {
  const { title, agent, taskId, t } = p;
  switch (kind) {
    case 'offer':
      return {
        text: [
          t('offer.head', { agent }),
          title,
          t('offer.reward', { amount: amountOf(p, field(data, 'reward'), data) }),
          '',
          t('offer.hint'),
        ].join('\n'),
        buttons: [
          [
            { text: t('offer.accept'), callbackData: offerCallbackData('accept', taskId) },
            { text: t('offer.decline'), callbackData: offerCallbackData('decline', taskId) },
          ],
        ],
      };
    case 'application_accepted': {
      const deadline = timeOf(p, field(data, 'executionDeadline'));
      return plain(
        t('accepted.head', { title }),
        deadline ? t('accepted.deadline', { time: deadline }) : null,
        t('accepted.chat'),
      );
    }
    case 'application_rejected':
      return plain(t('rejected', { title }));
    case 'batch_full':
      return plain(t('batchFull', { title }));
    case 'message':
      return messageText(data, p);
    case 'payment_sent':
      return plain(
        t('payment.sent', { amount: amountOf(p, field(data, 'amount'), data), title }),
        t('payment.transaction', { hash: escapeHtml(field(data, 'txHash') ?? t('common.unknown')) }),
      );
    case 'payment_failed':
      return plain(
        t('payment.failed', { amount: amountOf(p, field(data, 'amount'), data), title }),
        t('payment.failedWallet', { address: escapeHtml(field(data, 'toAddress') ?? t('common.unknown')) }),
        t('payment.stillOwed'),
      );
    case 'task_expired':
      return plain(t('expired', { title }));
    case 'offer_withdrawn':
      return plain(t('withdrawn', { title }), reasonLine(data, p));
    case 'task_cancelled':
      return plain(
        t('cancelled', { title, role: data.role === 'assigned' ? 'assigned' : 'applicant' }),
        reasonLine(data, p),
      );
    case 'dispute_opened':
      return plain(
        t('dispute.opened', { title, openedBy: data.openedBy === 'WORKER' ? 'WORKER' : 'AGENT' }),
        reasonLine(data, p),
        t('dispute.escrow'),
      );
    case 'dispute_resolved':
      return disputeResolvedText(data, p);
    case 'submission_received':
    case 'revision_requested':
    case 'review_reminder':
    case 'auto_released':
      return reviewText(kind, data, p);
    case 'partial_offered':
      return plain(
        t('partial.offered', {
          title,
          amount: amountOf(p, field(data, 'amount'), data),
          reward: amountOf(p, field(data, 'reward'), data),
        }),
        reasonLine(data, p),
        t('partial.answer', { time: timeOf(p, field(data, 'acceptBy')) ?? t('common.unknown') }),
      );
    case 'bonus_paid':
      return plain(
        t('bonus.paid', { title, amount: amountOf(p, field(data, 'amount'), data), agent: p.agent }),
        reasonLine(data, p),
      );
  }
}

/** The review of submitted work: received (with the countdown), revision asked, reminder, auto-release. */
function reviewText(
  kind: 'submission_received' | 'revision_requested' | 'review_reminder' | 'auto_released',
  data: Record<string, unknown>,
  p: Parts,
): BotMessage {
  const { title, t } = p;
  const until = timeOf(p, field(data, 'reviewDeadline'));
  switch (kind) {
    case 'submission_received':
      return plain(t('review.submitted', { title }), until ? t('review.until', { time: until }) : null);
    case 'revision_requested': {
      const left =
        typeof data.revisionsLeft === 'number' ? Math.max(0, Math.floor(data.revisionsLeft)) : null;
      const executionDeadline = timeOf(p, field(data, 'executionDeadline'));
      return plain(
        t('review.revision', { title }),
        reasonLine(data, p),
        executionDeadline ? t('review.revisionDeadline', { time: executionDeadline }) : null,
        left === null ? null : t('review.revisionsLeft', { count: left }),
      );
    }
    case 'review_reminder':
      return plain(
        t('review.reminder', { title }),
        until ? t('review.reminderUntil', { time: until }) : null,
      );
    case 'auto_released':
      return plain(
        t(data.partial === true ? 'partial.autoAccepted' : 'review.autoReleased', { title }),
        t('review.onItsWay', { amount: amountOf(p, field(data, 'amount'), data) }),
      );
  }
}

function disputeResolvedText(data: Record<string, unknown>, p: Parts): BotMessage {
  const amount = field(data, 'workerAmount') ?? '0';
  const note = field(data, 'note');
  return plain(
    amount === '0'
      ? p.t('dispute.nothing', { title: p.title })
      : p.t('dispute.paid', { title: p.title, amount: amountOf(p, amount, data) }),
    note ? p.t('dispute.note', { note: escapeHtml(clip(note, CLIP.preview)) }) : null,
  );
}

/** A burst of agent messages is one notification: it says how many and quotes the latest. */
function messageText(data: Record<string, unknown>, p: Parts): BotMessage {
  const count = typeof data.count === 'number' && data.count > 1 ? Math.floor(data.count) : 1;
  const preview = field(data, 'preview');
  const values = { count, agent: p.agent, title: p.title };
  return plain(
    p.t(preview ? 'chat.withPreview' : 'chat.withoutPreview', values),
    preview ? escapeHtml(clip(preview, CLIP.preview)) : null,
    data.hasFile === true ? p.t('chat.file') : null,
  );
}

function reasonLine(data: Record<string, unknown>, p: Parts): string | null {
  const reason = field(data, 'reason');
  return reason ? p.t('common.reason', { reason: escapeHtml(clip(reason, CLIP.preview)) }) : null;
}

function plain(...lines: (string | null)[]): BotMessage {
  return { text: lines.filter((l) => l !== null).join('\n'), buttons: [] };
}
