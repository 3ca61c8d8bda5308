import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { type Api, Bot, GrammyError, HttpError, InlineKeyboard } from 'grammy';
import type { Update } from 'grammy/types';
import type { Config } from '../config.js';
import type { DomainContext } from '../domain/context.js';
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
    sender: grammySender(bot.api),
    async handleUpdate(update) {
      // The bot learns its own username (for "/start@name") on the first update, with one
      // getMe: nothing is called at start-up, and a failure fails this update, which Telegram
      // delivers again (bot.init() would retry inside the webhook request instead).
      if (!bot.isInited()) bot.botInfo = await bot.api.getMe();
      await bot.handleUpdate(update);
    },
    async setWebhook(url) {
      await bot.api.setWebhook(url, {
        secret_token: settings.webhookSecret,
        allowed_updates: ['message', 'callback_query'],
      });
    },
  };
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
export function grammySender(api: Api): TelegramSender {
  return {
    timeoutMs: BOT_API_TIMEOUT_MS,
    async send(chatId: string, message: BotMessage): Promise<SendResult> {
      try {
        await api.sendMessage(/^-?\d+$/.test(chatId) ? Number(chatId) : chatId, message.text, {
          parse_mode: 'HTML',
          link_preview_options: { is_disabled: true },
          ...(message.buttons.length > 0 ? { reply_markup: keyboard(message) } : {}),
        });
        return { ok: true };
      } catch (error) {
        return sendFailure(error);
      }
    },
  };
}

function keyboard(message: BotMessage): InlineKeyboard {
  return InlineKeyboard.from(
    message.buttons.map((row) => row.map((b) => InlineKeyboard.text(b.text, b.callbackData))),
  );
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
