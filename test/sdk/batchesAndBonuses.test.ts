import { createdTask, Handoff, HandoffWorker, unwrap } from '@handoff/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, newWalletAddress } from '../helpers/fixtures.js';
import { listen } from '../helpers/mcp.js';

let t: TestApp;
let baseUrl: string;
let handoff: Handoff;

beforeAll(async () => {
  t = await createTestApp();
  baseUrl = await listen(t);
  const agent = await createAgent(t, { name: 'SDK batcher', deposit: '100' });
  handoff = new Handoff({ baseUrl, apiKey: agent.apiKey });
});
afterAll(async () => {
  await t?.close();
});

const balance = async () => Number(unwrap(await handoff.api.GET('/agents/me')).agent.balance);

describe('SDK: batches and bonuses (issue 40)', () => {
  it('creates a batch once per key, reads and lists it, and cancels it with every task refunded', async () => {
    const before = await balance();
    const body = {
      template: { title: 'Count the bikes', description: 'At the station', reward: '1' },
      count: 3,
    };
    const created = await handoff.createBatch(body, { idempotencyKey: 'sdk-batch-1' });
    const again = await handoff.createBatch(body, { idempotencyKey: 'sdk-batch-1' });
    expect(again.batch.id).toBe(created.batch.id);
    expect(await balance()).toBeCloseTo(before - 3 * 1.3, 9);

    expect((await handoff.batch(created.batch.id)).id).toBe(created.batch.id);
    const listed = [];
    for await (const batch of handoff.batches()) listed.push(batch.id);
    expect(listed).toEqual([created.batch.id]);

    const cancelled = await handoff.cancelBatch(created.batch.id);
    expect(cancelled.notRefunded).toEqual([]);
    expect(await balance()).toBeCloseTo(before, 9);
  });

  it('pays a bonus once however often it is sent with its key, and refuses to send one without a key', async () => {
    const worker = HandoffWorker.fromBotToken({
      baseUrl,
      botToken: t.config.telegramBotToken,
      user: { id: 9_300_101, first_name: 'Bo' },
      authDate: t.clock.now(),
    });
    await worker.me();
    await worker.setWallet(newWalletAddress());
    const { task } = createdTask(
      unwrap(
        await handoff.api.POST('/tasks', {
          body: { title: 'Water the plants', description: 'All of them', reward: '2' },
        }),
      ),
    );
    const application = await worker.apply(task.id, 'Happy to');
    unwrap(
      await handoff.api.PATCH('/applications/{id}', {
        params: { path: { id: application.id } },
        body: { status: 'ACCEPTED' },
      }),
    );
    await worker.submit(task.id, { note: 'Done' });
    unwrap(await handoff.api.POST('/tasks/{id}/complete', { params: { path: { id: task.id } } }));

    const before = await balance();
    const body = { amount: '1', reason: 'Extra care' };
    const first = await handoff.payBonus(task.id, body, { idempotencyKey: 'sdk-bonus-1' });
    const retried = await handoff.payBonus(task.id, body, { idempotencyKey: 'sdk-bonus-1' });
    expect(retried.bonus.id).toBe(first.bonus.id);
    expect(first.bonus).toMatchObject({ amount: '1', reason: 'Extra care' });
    expect(await balance()).toBeCloseTo(before - 1.3, 9);

    await expect(
      handoff.payBonus(task.id, body, undefined as unknown as { idempotencyKey: string }),
    ).rejects.toThrow(/idempotencyKey/);
    expect(await balance()).toBeCloseTo(before - 1.3, 9);
  });
});
