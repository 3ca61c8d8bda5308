import type { FastifyBaseLogger } from 'fastify';
import { type Bot, type Context, type Filter, InlineKeyboard } from 'grammy';
import { findWorkerByTelegramId } from '../db/repositories/workers.js';
import type { DomainContext } from '../domain/context.js';
import { DomainError } from '../domain/errors.js';
import { acceptOffer, declineOffer } from '../domain/tasks/offers.js';
import { clipText } from '../domain/text.js';
import { languageOf } from '../domain/workers/language.js';
import { botText } from './i18n.js';
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
    const language = await languageFor(ctx, c.from);
    const keyboard = new InlineKeyboard().webApp(botText(language, 'bot.openHandoff'), options.miniAppUrl);
    await bestEffort(
      options.log,
      'reply to /start',
      c.reply(botText(language, 'bot.start'), { reply_markup: keyboard }),
    );
  });

  bot.on('callback_query:data', async (c) => {
    const offer = parseOfferCallback(c.callbackQuery.data);
    if (!offer) {
      const language = await languageFor(ctx, c.callbackQuery.from as TelegramFrom | undefined);
      await answer(c, options.log, botText(language, 'bot.unknownButton'), true);
      return;
    }
    await pressOfferButton(c, ctx, options.log, offer);
  });
}

type TelegramFrom = { id: number; language_code?: string };

/**
 * A worker's stored language (what the profile chose, or Telegram's at the last sign-in); for
 * someone who never opened the Mini App, their Telegram app's language.
 */
async function languageFor(ctx: DomainContext, from: TelegramFrom | undefined): Promise<string> {
  if (!from) return languageOf(null);
  const worker = await findWorkerByTelegramId(ctx.db, String(from.id));
  return worker?.language ?? languageOf(from.language_code);
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
  const from = c.callbackQuery.from as TelegramFrom | undefined;
  const worker = from ? await findWorkerByTelegramId(ctx.db, String(from.id)) : undefined;
  if (!worker) {
    await answer(c, log, botText(languageOf(from?.language_code), 'bot.signInFirst'), true);
    return;
  }
  const t = (key: string) => botText(worker.language, key);
  try {
    if (offer.action === 'accept') await acceptOffer(ctx, worker.id, offer.taskId);
    else await declineOffer(ctx, worker.id, offer.taskId);
  } catch (error) {
    // Someone else's offer is "Offer not found", like the HTTP route; anything else is a bug
    // (or the database) and fails the update, so Telegram delivers it again.
    if (!(error instanceof DomainError)) throw error;
    // The domain's refusals are in English for the API; the worker reads the two an offer
    // button can meet in their language (anything else as the domain says it).
    const refusal =
      error.kind === 'not_found'
        ? t('bot.offerNotFound')
        : error.kind === 'conflict'
          ? t('bot.offerClosed')
          : error.message;
    await answer(c, log, refusal, true);
    // The offer was answered elsewhere (the Mini App): its buttons can do nothing any more.
    if (error.kind === 'conflict') await closeOffer(c, log, `ℹ️ ${refusal}`);
    return;
  }
  const accepted = offer.action === 'accept';
  await answer(c, log, t(accepted ? 'bot.acceptedAnswer' : 'bot.declinedAnswer'), false);
  await closeOffer(c, log, t(accepted ? 'bot.acceptedLine' : 'bot.declinedLine'));
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
