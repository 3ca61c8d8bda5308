import { createTelegramBot, telegramSettings } from '../../src/telegram/bot.js';
import type { TelegramSender } from '../../src/telegram/notifier.js';
import { createTestApp, type TestApp } from './app.js';
import { FakeTelegram } from './fakeTelegram.js';
import { createAgent, type TestAgent } from './fixtures.js';

/** A test app whose bot talks to a fake Bot API, and an agent that posts the tasks it tells of. */
export interface BotApp {
  fake: FakeTelegram;
  t: TestApp;
  sender: TelegramSender;
  agent: TestAgent;
}

/** Starts the fake Bot API, the app pointed at it, its bot's sender and an agent with a deposit. */
export async function startBotApp(agent: { name: string; deposit: string }): Promise<BotApp> {
  const fake = await FakeTelegram.start();
  const t = await createTestApp({ telegram: { apiRoot: fake.apiRoot } });
  const sender = createTelegramBot(t.ctx, telegramSettings(t.config)!, t.app.log).sender;
  return { fake, t, sender, agent: await createAgent(t, agent) };
}

export async function closeBotApp({ t, fake }: Pick<BotApp, 't' | 'fake'>) {
  await t.close();
  await fake.close();
}
