import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { type Api, Bot, GrammyError, HttpError, InlineKeyboard } from 'grammy';
import type { InlineKeyboardButton, Update } from 'grammy/types';
import type { Config } from '../config.js';
import { forgetUpdate, pruneUpdates, recordUpdateOnce } from '../db/repositories/telegramUpdates.js';
import type { DomainContext } from '../domain/context.js';
import { botText } from './i18n.js';
import type { BotMessage } from './messages.js';
import type { SendResult, TelegramSender } from './notifier.js';
import { registerUpdateHandlers } from './updates.js';

/** Every Bot API call gives up after this (grammy's default is 500 s). */
export const BOT_API_TIMEOUT_MS = 10_000;
/** The path Telegram posts updates to. */
export const WEBHOOK_PATH = '/telegram/webhook';

export interface TelegramSettings {
  token: string;
  apiRoot: string;
  miniAppUrl: string;
  webhookSecret: string;
}

/** The bot's settings, or null when the token was generated (no bot: notifications are recorded). */
export function telegramSettings(config: Config): TelegramSettings | null {
  if (!config.telegramBotEnabled) return null;
  return {
    token: config.telegramBotToken,
    apiRoot: config.telegramApiRoot,
    miniAppUrl: config.miniAppUrl,
    webhookSecret: config.telegramWebhookSecret,
  };
}

export interface TelegramBot {
  /** Sends notifications (the outbox's sending side uses it). */
  sender: TelegramSender;
  /** Runs one update from the webhook through the bot's handlers. */
  handleUpdate(update: Update): Promise<void>;
  /** Tells Telegram to post updates to `url`, with the secret-token header. */
  setWebhook(url: string): Promise<void>;
}

/** The grammy bot: its API client points at `apiRoot` (the real Bot API, or a local fake). */
export function createTelegramBot(
  ctx: DomainContext,
  settings: TelegramSettings,
  log: FastifyBaseLogger,
): TelegramBot {
  const bot = new Bot(settings.token, {
    client: { apiRoot: settings.apiRoot, timeoutSeconds: BOT_API_TIMEOUT_MS / 1000 },
  });
  registerUpdateHandlers(bot, ctx, { miniAppUrl: settings.miniAppUrl, log });
  return {
    sender: grammySender(bot.api, settings.miniAppUrl),
    async handleUpdate(update) {
      await onceOnly(ctx, update.update_id, async () => {
        // The bot learns its own username (for "/start@name") on the first update, with one
        // getMe: nothing is called at start-up, and a failure fails this update, which Telegram
        // delivers again (bot.init() would retry inside the webhook request instead).
        if (!bot.isInited()) bot.botInfo = await bot.api.getMe();
        await bot.handleUpdate(update);
      });
    },
    async setWebhook(url) {
      await bot.api.setWebhook(url, {
        secret_token: settings.webhookSecret,
        allowed_updates: ['message', 'callback_query'],
      });
    },
  };
}

/** Telegram redelivers for a day at most; records are kept a week. */
const UPDATE_MEMORY_MS = 7 * 86_400_000;

/**
 * Telegram delivers an update again when it saw no 2xx answer in time, even if it was handled:
 * each update_id is handled once. It is recorded before handling (a concurrent redelivery is
 * skipped while the first runs) and forgotten if handling fails, so Telegram's retry runs it.
 */
async function onceOnly(ctx: DomainContext, updateId: number, handle: () => Promise<void>): Promise<void> {
  const now = ctx.clock.now();
  const id = String(updateId);
  if (!(await recordUpdateOnce(ctx.db, id, now.toISOString()))) return;
  try {
    await handle();
  } catch (error) {
    await forgetUpdate(ctx.db, id);
    throw error;
  }
  await pruneUpdates(ctx.db, new Date(now.getTime() - UPDATE_MEMORY_MS).toISOString());
}

/**
 * Once the server listens, points Telegram's webhook at PUBLIC_URL (in the background: start-up
 * never waits for Telegram). Every instance sets the same URL and secret, so this is idempotent.
 */
export function registerWebhookOnListen(app: FastifyInstance, telegram: TelegramBot, publicUrl: string) {
  app.addHook('onListen', async () => {
    const url = `${publicUrl}${WEBHOOK_PATH}`;
    if (!url.startsWith('https://')) {
      app.log.warn(
        `Telegram only posts updates to https URLs; /start and offer buttons need PUBLIC_URL on https`,
      );
      return;
    }
    telegram.setWebhook(url).then(
      () => app.log.info(`Telegram webhook set to ${url}`),
      (error: unknown) =>
        app.log.error({ err: error }, 'Telegram setWebhook failed: the bot gets no updates'),
    );
  });
}

/** Sends notification messages through grammy and sorts failures into retry or give up. */
export function grammySender(api: Api, miniAppUrl: string): TelegramSender {
  return {
    timeoutMs: BOT_API_TIMEOUT_MS,
    async send(chatId: string, message: BotMessage): Promise<SendResult> {
      const chat = /^-?\d+$/.test(chatId) ? Number(chatId) : chatId;
      try {
        if (message.replaces) await replaceMessage(api, chat, message.replaces);
        const sent = await api.sendMessage(chat, message.text, {
          parse_mode: 'HTML',
          link_preview_options: { is_disabled: true },
          ...(message.buttons.length > 0 || message.openTaskId
            ? { reply_markup: keyboard(message, miniAppUrl) }
            : {}),
        });
        return { ok: true, messageId: String(sent.message_id) };
      } catch (error) {
        return sendFailure(error);
      }
    },
  };
}

/**
 * Rewrites an earlier message without its buttons (an edit without reply_markup drops them).
 * A 400 (the message is gone, or already rewritten by an earlier attempt) leaves nothing to do;
 * other failures fail the send, which is retried, and the retry's edit is then a harmless 400.
 */
async function replaceMessage(api: Api, chat: number | string, old: { messageId: string; text: string }) {
  try {
    await api.editMessageText(chat, Number(old.messageId), old.text, {
      parse_mode: 'HTML',
      link_preview_options: { is_disabled: true },
    });
  } catch (error) {
    if (!(error instanceof GrammyError && error.error_code === 400)) throw error;
  }
}

function keyboard(message: BotMessage, miniAppUrl: string): InlineKeyboard {
  const rows: InlineKeyboardButton[][] = message.buttons.map((row) =>
    row.map((b) => InlineKeyboard.text(b.text, b.callbackData)),
  );
  if (message.openTaskId)
    rows.push([
      InlineKeyboard.webApp(
        message.openLabel ?? botText(null, 'common.openInHandoff'),
        taskLink(miniAppUrl, message.openTaskId),
      ),
    ]);
  return InlineKeyboard.from(rows);
}

/** The Mini App opened on a task: `startapp=task_<id>`, which the app reads at launch. */
export function taskLink(miniAppUrl: string, taskId: string): string {
  const url = new URL(miniAppUrl);
  url.searchParams.set('startapp', `task_${taskId}`);
  return url.toString();
}

function sendFailure(error: unknown): SendResult {
  if (error instanceof GrammyError) {
    const retryAfter = error.parameters.retry_after;
    return {
      ok: false,
      error: `Telegram answered ${error.error_code}: ${error.description}`,
      // 400 (a bad request, chat not found) and 403 (the user blocked the bot) stay as they are.
      final: error.error_code === 400 || error.error_code === 403,
      ...(typeof retryAfter === 'number' ? { retryAfterMs: retryAfter * 1000 } : {}),
    };
  }
  // grammy's HttpError message names the method, never the URL (which holds the token).
  if (error instanceof HttpError) return { ok: false, error: error.message };
  return { ok: false, error: `send failed: ${(error as Error).message}` };
}
