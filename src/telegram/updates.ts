import type { FastifyBaseLogger } from 'fastify';
import { type Bot, type Context, type Filter, InlineKeyboard } from 'grammy';
import { findWorkerByTelegramId } from '../db/repositories/workers.js';
import type { DomainContext } from '../domain/context.js';
import { DomainError } from '../domain/errors.js';
import { acceptOffer, declineOffer } from '../domain/offers.js';
import { clipText } from '../domain/text.js';
import { type OfferAction, parseOfferCallback } from './messages.js';

/** A button press: a callback query with data. */
type Press = Filter<Context, 'callback_query:data'>;

/** Telegram shows at most 200 characters of a callback answer. */
const MAX_ANSWER_CHARS = 200;

export interface UpdateOptions {
  miniAppUrl: string;
  log: FastifyBaseLogger;
}

/**
 * What the bot does with updates: `/start` answers with a button that opens the Mini App, and
 * the Accept / Decline buttons of an offer call the same domain functions as
 * POST /worker/offers/:taskId/accept and /decline, for the worker whose Telegram account pressed.
 */
export function registerUpdateHandlers(bot: Bot, ctx: DomainContext, options: UpdateOptions): void {
  bot.command('start', async (c) => {
    const text = [
      '👋 This is Handoff: AI agents hire people for real-world tasks and pay them in TON.',
      'Open the app to set up your profile and wallet, find tasks and chat with agents.',
      'Offers and updates about your tasks arrive here.',
    ].join('\n');
    const keyboard = new InlineKeyboard().webApp('Open Handoff', options.miniAppUrl);
    await bestEffort(options.log, 'reply to /start', c.reply(text, { reply_markup: keyboard }));
  });

  bot.on('callback_query:data', async (c) => {
    const offer = parseOfferCallback(c.callbackQuery.data);
    if (!offer) {
      await answer(c, options.log, 'This button is no longer in use.', true);
      return;
    }
    await pressOfferButton(c, ctx, options.log, offer);
  });
}

async function pressOfferButton(
  c: Press,
  ctx: DomainContext,
  log: FastifyBaseLogger,
  offer: { action: OfferAction; taskId: string },
) {
  // Only a worker who signed in through the Mini App has a profile and wallet to take work with.
  // Telegram always names who pressed; a query without `from` (not from Telegram, or a future
  // variant) names nobody, and is answered like a stranger's press.
  const from = c.callbackQuery.from as { id: number } | undefined;
  const worker = from ? await findWorkerByTelegramId(ctx.db, String(from.id)) : undefined;
  if (!worker) {
    await answer(c, log, 'Open Handoff first to sign in, then press the button again.', true);
    return;
  }
  try {
    if (offer.action === 'accept') await acceptOffer(ctx, worker.id, offer.taskId);
    else await declineOffer(ctx, worker.id, offer.taskId);
  } catch (error) {
    // Someone else's offer is "Offer not found", like the HTTP route; anything else is a bug
    // (or the database) and fails the update, so Telegram delivers it again.
    if (!(error instanceof DomainError)) throw error;
    await answer(c, log, error.message, true);
    // The offer was answered elsewhere (the Mini App): its buttons can do nothing any more.
    if (error.kind === 'conflict') await closeOffer(c, log, `ℹ️ ${error.message}`);
    return;
  }
  const accepted = offer.action === 'accept';
  await answer(c, log, accepted ? 'Accepted: the task is yours.' : 'Offer declined.', false);
  await closeOffer(
    c,
    log,
    accepted
      ? '✅ You accepted this offer: the task is yours. Open Handoff to chat with the agent.'
      : '✖️ You declined this offer.',
  );
}

function answer(c: Press, log: FastifyBaseLogger, text: string, alert: boolean) {
  const clipped = clipText(text, MAX_ANSWER_CHARS, { unit: 'utf16', ellipsis: '…' });
  return bestEffort(
    log,
    'answer a callback query',
    c.answerCallbackQuery({ text: clipped, show_alert: alert }),
  );
}

/**
 * Appends the outcome to the offer message and drops its buttons (an edit without reply_markup
 * removes the inline keyboard). The original entities still fit: the text only grows at the end.
 */
function closeOffer(c: Press, log: FastifyBaseLogger, outcome: string) {
  const message = c.callbackQuery.message;
  if (!message || !('text' in message) || typeof message.text !== 'string') return Promise.resolve();
  return bestEffort(
    log,
    'edit the offer message',
    c.editMessageText(`${message.text}\n\n${outcome}`, { entities: message.entities ?? [] }),
  );
}

/**
 * Bot API calls made after the change committed must not fail the update: Telegram would deliver
 * it again and the second press would find the offer already answered.
 */
async function bestEffort(log: FastifyBaseLogger, what: string, call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (error) {
    log.warn({ err: error }, `Telegram: could not ${what}`);
  }
}
