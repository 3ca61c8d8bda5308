import { createdTask, Handoff, HandoffError, HandoffWorker, signWorkerInitData, unwrap } from '@handoff/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, newWalletAddress, type TestAgent } from '../helpers/fixtures.js';
import { listen } from '../helpers/mcp.js';

let t: TestApp;
let baseUrl: string;
let agent: TestAgent;
let handoff: Handoff;

beforeAll(async () => {
  t = await createTestApp();
  baseUrl = await listen(t);
  agent = await createAgent(t, { deposit: '100' });
  handoff = new Handoff({ baseUrl, apiKey: agent.apiKey });
});
afterAll(async () => {
  await t?.close();
});

/** A worker as an agent developer's test plays it: init data signed from the bot token. */
function worker(id: number, botToken = t.config.telegramBotToken) {
  return HandoffWorker.fromBotToken({
    baseUrl,
    botToken,
    user: { id, first_name: `Tester ${id}`, username: `tester${id}` },
    authDate: t.clock.now(), // the test app's clock, not the wall clock
  });
}

async function all<T>(items: AsyncGenerator<T>): Promise<T[]> {
  const list: T[] = [];
  for await (const item of items) list.push(item);
  return list;
}

describe('SDK worker client against a running service', () => {
  it('signs in, connects a wallet, finds a task, applies, is accepted and chats with the agent', async () => {
    const w = worker(9_100_001);
    const me = await w.me();
    expect(me).toMatchObject({
      telegramUsername: 'tester9100001',
      firstName: 'Tester 9100001',
      walletAddress: null,
    });
    const wallet = newWalletAddress();
    expect((await w.setWallet(wallet)).walletAddress).toBe(wallet);

    const { task } = createdTask(
      unwrap(
        await handoff.api.POST('/tasks', {
          body: { title: 'Count birds', description: 'In the park', reward: '3' },
        }),
      ),
    );
    expect((await all(w.tasks())).map((x) => x.id)).toContain(task.id);
    const application = await w.apply(task.id, 'I can do it today');
    expect(application).toMatchObject({ taskId: task.id, status: 'PENDING' });

    unwrap(
      await handoff.api.PATCH('/applications/{id}', {
        params: { path: { id: application.id } },
        body: { status: 'ACCEPTED' },
      }),
    );
    const sent = await w.sendMessage(task.id, 'Starting now');
    expect(sent.content).toBe('Starting now');
    const seen = await all(handoff.messages(task.id));
    expect(seen.map((m) => m.content)).toContain('Starting now');
    unwrap(
      await handoff.api.POST('/chat/{taskId}/messages', {
        params: { path: { taskId: task.id } },
        body: { content: 'Thanks' },
      }),
    );
    expect((await all(w.messages(task.id))).map((m) => m.content)).toEqual(['Thanks', 'Starting now']);
  });

  it('sees a direct offer and accepts it; another offer it declines', async () => {
    const w = worker(9_100_002);
    const me = await w.me();
    await w.setWallet(newWalletAddress());
    const offer = (reward: string) =>
      handoff.api.POST('/tasks', {
        body: { title: 'Just you', description: 'Direct', reward, assignToUserId: me.id },
      });
    const first = createdTask(unwrap(await offer('2'))).task;
    const second = createdTask(unwrap(await offer('1'))).task;
    expect((await all(w.offers())).map((x) => x.id).sort()).toEqual([first.id, second.id].sort());
    const accepted = await w.acceptOffer(first.id);
    expect(accepted.task).toMatchObject({ id: first.id, status: 'ASSIGNED' });
    await w.declineOffer(second.id);
    expect(await all(w.offers())).toEqual([]);
  });

  it('API errors are HandoffErrors with the API message; init data from another bot token is refused', async () => {
    const w = worker(9_100_003);
    await w.me();
    await expect(w.apply('tsk_nope', 'hi')).rejects.toBeInstanceOf(HandoffError);
    const stranger = worker(9_100_004, '123456:not-the-bot-token');
    await expect(stranger.me()).rejects.toMatchObject({ status: 401 });
    // The signed init data is what Telegram gives a Mini App: fields plus their hash.
    const initData = new URLSearchParams(signWorkerInitData('1:x', { id: 1, first_name: 'A' }, new Date(0)));
    expect(initData.get('auth_date')).toBe('0');
    expect(JSON.parse(initData.get('user')!)).toEqual({ id: 1, first_name: 'A' });
    expect(initData.get('hash')).toMatch(/^[0-9a-f]{64}$/);
  });
});
