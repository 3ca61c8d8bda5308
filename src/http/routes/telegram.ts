import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Update } from 'grammy/types';
import { safeEqual } from '../../domain/agents/apiKeys.js';
import { type TelegramBot, WEBHOOK_PATH } from '../../telegram/bot.js';

export interface TelegramRouteOptions {
  /** Null when no bot is configured. */
  telegram: TelegramBot | null;
  /** What Telegram sends in X-Telegram-Bot-Api-Secret-Token (given to it by setWebhook). */
  webhookSecret: string;
}

/**
 * POST /telegram/webhook: Telegram's updates for the bot (button presses, /start). It is for
 * Telegram only, so it is left out of the OpenAPI document; the secret-token header is its
 * authentication, checked before the body is read.
 */
export const telegramRoutes: FastifyPluginAsync<TelegramRouteOptions> = async (app, options) => {
  const checkSecret = async (request: FastifyRequest, reply: FastifyReply) => {
    const given = request.headers['x-telegram-bot-api-secret-token'];
    if (typeof given !== 'string' || !safeEqual(given, options.webhookSecret)) {
      return reply.status(401).send({ error: 'Unauthorized' });
    }
  };

  app.post(
    WEBHOOK_PATH,
    { schema: { hide: true }, config: { acceptNul: true, takesBody: true }, onRequest: checkSecret },
    async (request, reply) => {
      if (!options.telegram) {
        return reply.status(404).send({ error: 'No Telegram bot is configured: set TELEGRAM_BOT_TOKEN' });
      }
      const update = request.body as Update | undefined;
      if (!update || typeof update !== 'object' || !Number.isInteger(update.update_id)) {
        return reply.status(400).send({ error: 'The body is not a Telegram update' });
      }
      // Errors other than the domain's refusals (answered in the chat) give a 500, and Telegram
      // delivers the update again.
      await options.telegram.handleUpdate(update);
      return { ok: true };
    },
  );
};
