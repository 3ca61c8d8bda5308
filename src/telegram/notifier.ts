import type { NotificationRow } from '../db/repositories/executor.js';
import { DEFAULT_READER, type Reader } from './i18n.js';
import { type BotMessage, offerWithdrawnLine, renderNotification, type TaskLabel } from './messages.js';

/** How one send went; `final` when no retry can help (the user blocked the bot, a bad request). */
export type SendResult =
  | { ok: true; messageId?: string }
  | { ok: false; error: string; final?: boolean; retryAfterMs?: number };

/** Delivers one message to one Telegram chat (grammy in bot.ts; tests may wrap it to inject faults). */
export interface TelegramSender {
  /** A send gives up after this long, so a claimed row's lease always outlives its attempt. */
  readonly timeoutMs: number;
  send(chatId: string, message: BotMessage): Promise<SendResult>;
}

/**
 * A withdrawn offer also rewrites the offer's own message (if it was sent): the same text plus
 * a closing line, without the Accept / Decline buttons.
 */
export function withReplacedOffer(
  message: BotMessage,
  offer: { telegramMessageId: string; dataJson: string } | null,
  label: TaskLabel | undefined,
  reader: Reader = DEFAULT_READER,
): BotMessage {
  if (!offer) return message;
  const original = renderStored('offer', offer.dataJson, label, reader).text;
  return {
    ...message,
    replaces: { messageId: offer.telegramMessageId, text: `${original}\n\n${offerWithdrawnLine(reader)}` },
  };
}

/** The text a stored notification becomes (what is sent, and what the operator sees). */
export function renderStored(
  kind: NotificationRow['kind'],
  dataJson: string,
  label?: TaskLabel,
  reader: Reader = DEFAULT_READER,
): BotMessage {
  let data: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(dataJson);
    if (parsed && typeof parsed === 'object') data = parsed as Record<string, unknown>;
  } catch {
    // Rows are written by notifyWorker as JSON; a broken one still renders from the labels.
  }
  return renderNotification(kind, data, label, reader);
}
