import type { NotificationKind } from '../db/schema.js';
import { assertInvariant } from '../domain/errors.js';
import { clipText } from '../domain/text.js';

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
  /** An earlier message of the bot to rewrite (without buttons) before this one is sent. */
  replaces?: { messageId: string; text: string };
}

/** The line a withdrawn offer's message ends with once its buttons are gone. */
export const OFFER_WITHDRAWN_LINE = '🚫 Withdrawn by the agent.';

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

/** "2030-01-04 00:00 UTC" from an ISO timestamp. */
function utcMinute(iso: string): string {
  return `${iso.slice(0, 16).replace('T', ' ')} UTC`;
}

const OPENS_TASK: NotificationKind[] = [
  'offer',
  'application_accepted',
  'message',
  'payment_sent',
  'dispute_opened',
  'dispute_resolved',
  'submission_received',
  'revision_requested',
  'review_reminder',
  'auto_released',
];

/** The message a notification becomes, from its stored data and the task's current labels. */
export function renderNotification(
  kind: NotificationKind,
  data: Record<string, unknown>,
  label: TaskLabel = { title: null, agentName: null },
): BotMessage {
  const title = `<b>${escapeHtml(clip(field(data, 'title') ?? label.title ?? 'your task', CLIP.title))}</b>`;
  const agent = escapeHtml(clip(field(data, 'agentName') ?? label.agentName ?? 'the agent', CLIP.agentName));
  const taskId = field(data, 'taskId') ?? '';
  const message = renderKind(kind, data, title, agent, taskId);
  // Messages about work the worker has or is offered open that task; about work gone, none.
  const opens = taskId !== '' && OPENS_TASK.includes(kind);
  return opens ? { ...message, openTaskId: taskId } : message;
}

function renderKind(
  kind: NotificationKind,
  data: Record<string, unknown>,
  title: string,
  agent: string,
  taskId: string,
): BotMessage {
  switch (kind) {
    case 'offer':
      return {
        text: [
          `📩 <b>New offer</b> from ${agent}`,
          title,
          `Reward: <b>${escapeHtml(field(data, 'reward') ?? '?')} ${unit(data)}</b>`,
          '',
          'Accept to take the task; its execution deadline starts when you accept.',
        ].join('\n'),
        buttons: [
          [
            { text: '✅ Accept', callbackData: offerCallbackData('accept', taskId) },
            { text: '✖️ Decline', callbackData: offerCallbackData('decline', taskId) },
          ],
        ],
      };
    case 'application_accepted': {
      const deadline = field(data, 'executionDeadline');
      return plain(
        `✅ Your application for ${title} was accepted: the task is yours.`,
        deadline ? `Deadline: ${escapeHtml(utcMinute(deadline))}.` : null,
        'Open Handoff to chat with the agent.',
      );
    }
    case 'application_rejected':
      return plain(`Your application for ${title} was not selected this time.`);
    case 'message':
      return messageText(data, title, agent);
    case 'payment_sent':
      return plain(
        `💸 Payment sent: <b>${escapeHtml(field(data, 'amount') ?? '?')} ${unit(data)}</b> for ${title}.`,
        `Transaction: <code>${escapeHtml(field(data, 'txHash') ?? 'unknown')}</code>`,
      );
    case 'task_expired':
      return plain(`⌛ The execution deadline of ${title} passed: the task is no longer assigned to you.`);
    case 'offer_withdrawn':
      return plain(
        `🚫 The agent withdrew the offer ${title}: there is nothing to do for it.`,
        reasonLine(data),
      );
    case 'task_cancelled':
      return plain(
        data.role === 'assigned'
          ? `🚫 The agent cancelled ${title}: it is no longer assigned to you.`
          : `🚫 The agent cancelled ${title}: your application is closed.`,
        reasonLine(data),
      );
    case 'dispute_opened':
      return disputeOpenedText(data, title);
    case 'dispute_resolved':
      return disputeResolvedText(data, title);
    case 'submission_received':
    case 'revision_requested':
    case 'review_reminder':
    case 'auto_released':
      return reviewText(kind, data, title);
  }
}

/** The review of submitted work: received (with the countdown), revision asked, reminder, auto-release. */
function reviewText(
  kind: 'submission_received' | 'revision_requested' | 'review_reminder' | 'auto_released',
  data: Record<string, unknown>,
  title: string,
): BotMessage {
  const deadline = field(data, 'reviewDeadline');
  const until = deadline ? escapeHtml(utcMinute(deadline)) : null;
  switch (kind) {
    case 'submission_received':
      return plain(
        `📤 Your work on ${title} was submitted for review.`,
        until
          ? `The agent has until ${until} to approve it, ask for a revision or open a dispute; if it does nothing, you are paid automatically then.`
          : null,
      );
    case 'revision_requested': {
      const left =
        typeof data.revisionsLeft === 'number' ? Math.max(0, Math.floor(data.revisionsLeft)) : null;
      const executionDeadline = field(data, 'executionDeadline');
      return plain(
        `✏️ The agent asked for a revision of ${title}.`,
        reasonLine(data),
        executionDeadline ? `Submit the revised work by ${escapeHtml(utcMinute(executionDeadline))}.` : null,
        left === null ? null : `Revisions the agent may still ask for: ${left}.`,
      );
    }
    case 'review_reminder':
      return plain(
        `⏳ The review of ${title} ends soon.`,
        until ? `If the agent does nothing before ${until}, you are paid automatically.` : null,
      );
    case 'auto_released':
      return plain(
        `✅ The review window of ${title} ended without an answer from the agent: the work is approved.`,
        `<b>${escapeHtml(field(data, 'amount') ?? '?')} ${unit(data)}</b> is on its way to your wallet.`,
      );
  }
}

/** Both sides' disputes reach the worker: theirs as a receipt, the agent's as news. */
function disputeOpenedText(data: Record<string, unknown>, title: string): BotMessage {
  return plain(
    data.openedBy === 'WORKER'
      ? `⚖️ Your dispute about ${title} is open.`
      : `⚖️ The agent opened a dispute about ${title}.`,
    reasonLine(data),
    'The reward stays in escrow until an operator decides. Add your side in Handoff (text and photos).',
  );
}

function disputeResolvedText(data: Record<string, unknown>, title: string): BotMessage {
  const amount = field(data, 'workerAmount') ?? '0';
  const note = field(data, 'note');
  return plain(
    amount === '0'
      ? `⚖️ The dispute about ${title} was decided: no payment to you; the reward went back to the agent.`
      : `⚖️ The dispute about ${title} was decided: <b>${escapeHtml(amount)} ${unit(data)}</b> is being sent to your wallet.`,
    note ? `Operator’s note: ${escapeHtml(clip(note, CLIP.preview))}` : null,
  );
}

/** A burst of agent messages is one notification: it says how many and quotes the latest. */
function messageText(data: Record<string, unknown>, title: string, agent: string): BotMessage {
  const count = typeof data.count === 'number' && data.count > 1 ? Math.floor(data.count) : 1;
  const preview = field(data, 'preview');
  const head =
    count === 1
      ? `💬 New message from ${agent} about ${title}`
      : `💬 ${count} new messages from ${agent} about ${title}`;
  return plain(
    preview ? `${head}${count === 1 ? ':' : '. The latest:'}` : `${head}.`,
    preview ? escapeHtml(clip(preview, CLIP.preview)) : null,
    data.hasFile === true ? '📎 With a file.' : null,
  );
}

function reasonLine(data: Record<string, unknown>): string | null {
  const reason = field(data, 'reason');
  return reason ? `Reason: ${escapeHtml(clip(reason, CLIP.preview))}` : null;
}

function plain(...lines: (string | null)[]): BotMessage {
  return { text: lines.filter((l) => l !== null).join('\n'), buttons: [] };
}
