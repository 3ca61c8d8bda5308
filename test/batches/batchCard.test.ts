import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sendDueNotifications } from '../../src/outbox/notifications.js';
import { accept, apply, call, type Json, ok } from '../helpers/agentApi.js';
import { type BotApp, closeBotApp, startBotApp } from '../helpers/botApp.js';
import { createTask, createWorker, type TestWorker } from '../helpers/fixtures.js';

/**
 * Issue 40, scope 2: a batch is one card in the worker's open tasks, applying takes its next open
 * place, the last place goes to one of the workers racing for it, and the applicants still
 * waiting when the last place goes are told the batch is full (docs/decisions/batches.md).
 */

let bot: BotApp;
beforeAll(async () => {
  bot = await startBotApp({ name: 'Menu Mapper', deposit: '10000' });
}, 120_000);
afterAll(() => closeBotApp(bot));
beforeEach(() => bot.fake.clear());

const template = { title: 'Photograph a café menu', description: 'The whole menu, readable', reward: '2' };

async function createBatch(count: number, maxPerWorker?: number) {
  const body = await ok(
    bot.t,
    bot.agent,
    'POST',
    '/batches',
    { template, count, ...(maxPerWorker ? { maxPerWorker } : {}) },
    201,
  );
  return { id: body.batch.id as string, taskIds: body.tasks.map((task: Json) => task.id as string) };
}

/** This agent's items in the worker's open tasks (the app is shared with the other tests here). */
async function openItems(worker: TestWorker): Promise<Json[]> {
  const page = await ok(bot.t, worker, 'GET', '/worker/tasks?limit=100');
  return page.tasks.filter((task: Json) => task.agent.id === bot.agent.id);
}

const cardOf = async (worker: TestWorker, batchId: string) =>
  (await openItems(worker)).filter((task) => task.batch?.id === batchId);

function applyToBatch(worker: TestWorker, batchId: string, message = 'I live nearby') {
  return call(bot.t, worker, 'POST', `/worker/batches/${batchId}/applications`, { message });
}

describe('a batch in the worker’s open tasks', () => {
  it('is one card with its places left, standing for its next open place', async () => {
    const single = await createTask(bot.t, bot.agent, { title: 'A single task' });
    const batch = await createBatch(5, 1);
    const worker = await createWorker(bot.t);
    const items = await openItems(worker);
    const ofBatch = items.filter((task) => task.batch);
    expect(ofBatch).toHaveLength(1);
    expect(ofBatch[0]).toMatchObject({
      id: batch.taskIds[0],
      title: template.title,
      status: 'FUNDED',
      batch: { id: batch.id, count: 5, placesLeft: 5, maxPerWorker: 1, yourPlaces: 0 },
    });
    // The single task is listed as before, without a batch.
    const alone = items.find((task) => task.id === single.id);
    expect(alone).toBeDefined();
    expect(alone).not.toHaveProperty('batch');
  });

  it('applying takes the next open place; the card then counts one place fewer', async () => {
    const batch = await createBatch(4, 1);
    const [first, second, third] = [
      await createWorker(bot.t),
      await createWorker(bot.t),
      await createWorker(bot.t),
    ];
    const a = await applyToBatch(first, batch.id);
    expect(a.statusCode, a.body).toBe(201);
    expect(a.json().application).toMatchObject({ taskId: batch.taskIds[0], status: 'PENDING' });
    const b = await applyToBatch(second, batch.id);
    expect(b.statusCode, b.body).toBe(201);
    expect(b.json().application.taskId).toBe(batch.taskIds[1]);

    const [card] = await cardOf(third, batch.id);
    expect(card).toMatchObject({ id: batch.taskIds[2], batch: { placesLeft: 2, yourPlaces: 0 } });
    // The agent sees an ordinary application on that task.
    const listed = await ok(bot.t, bot.agent, 'GET', `/tasks/${batch.taskIds[0]}/applications`);
    expect(listed.applications).toHaveLength(1);
    expect(listed.applications[0]).toMatchObject({ id: a.json().application.id, status: 'PENDING' });

    // At maxPerWorker the card stays, not takeable, and applying again is a 409 that says why.
    const [mine] = await cardOf(first, batch.id);
    expect(mine?.batch).toMatchObject({ placesLeft: 2, yourPlaces: 1, maxPerWorker: 1 });
    const again = await applyToBatch(first, batch.id);
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toBe(
      'This batch takes each person once, and you already applied for or hold one of its tasks',
    );
  });

  it('answers 404 for an unknown batch and 409 without a wallet, taking nothing', async () => {
    const batch = await createBatch(2);
    const worker = await createWorker(bot.t);
    const unknown = await applyToBatch(worker, 'bat_00000000000000000000000000');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error).toBe('Batch not found');
    const noWallet = await createWorker(bot.t, { wallet: false });
    const refused = await applyToBatch(noWallet, batch.id);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toMatch(/Connect a TON wallet/);
    expect((await cardOf(worker, batch.id))[0]?.batch.placesLeft).toBe(2);
  });

  it('of 10 workers applying at once for the last place, exactly one gets it; the others hear it is full', async () => {
    const batch = await createBatch(1);
    const workers: TestWorker[] = [];
    for (let i = 0; i < 10; i++) workers.push(await createWorker(bot.t));
    const answers = await Promise.all(workers.map((w) => applyToBatch(w, batch.id)));
    const codes = answers.map((r) => r.statusCode).sort();
    expect(codes).toEqual([201, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    for (const lost of answers.filter((r) => r.statusCode === 409)) {
      expect(lost.json()).toEqual({
        error: 'This batch is full: every place is taken. Choose another task from the list',
        batchId: batch.id,
      });
    }
    const won = answers.find((r) => r.statusCode === 201);
    expect(won?.json().application.taskId).toBe(batch.taskIds[0]);
    const applications = await bot.t.ctx.db
      .selectFrom('applications')
      .select('id')
      .where('task_id', '=', batch.taskIds[0]!)
      .execute();
    expect(applications).toHaveLength(1);
    // The card is gone for everyone.
    expect(await cardOf(await createWorker(bot.t), batch.id)).toEqual([]);
  });

  it('when its last place is taken, the applicants still waiting are told it is full, once each, in their language', async () => {
    const batch = await createBatch(2);
    const [holderA, holderB, olga, dan] = [
      await createWorker(bot.t),
      await createWorker(bot.t),
      await createWorker(bot.t, { firstName: 'Olga' }),
      await createWorker(bot.t, { firstName: 'Dan' }),
    ];
    await ok(bot.t, olga, 'PATCH', '/worker/me', { language: 'ru' });
    const a = (await applyToBatch(holderA, batch.id)).json().application;
    const b = (await applyToBatch(holderB, batch.id)).json().application;
    expect([a.taskId, b.taskId]).toEqual(batch.taskIds);
    // Every place is held: the card is gone and a batch application is a 409.
    expect(await cardOf(dan, batch.id)).toEqual([]);
    expect((await applyToBatch(dan, batch.id)).statusCode).toBe(409);
    // Others still wait on single tasks of the batch (a task's own route, e.g. from a shared link).
    await apply(bot.t, olga, batch.taskIds[0]!);
    await apply(bot.t, olga, batch.taskIds[1]!);
    await apply(bot.t, dan, batch.taskIds[1]!);

    await accept(bot.t, bot.agent, a.id);
    await sendDueNotifications(bot.t.ctx, bot.sender);
    // One place left: Olga's application to the first task is simply not selected.
    const olgaFirst = bot.fake.sent().filter((m) => m.chatId === olga.telegramId);
    expect(olgaFirst.map((m) => m.text)).toEqual([
      'Ваша заявка на <b>Photograph a café menu</b> в этот раз не выбрана.',
    ]);
    bot.fake.clear();

    await accept(bot.t, bot.agent, b.id);
    await sendDueNotifications(bot.t.ctx, bot.sender);
    const told = (w: TestWorker) =>
      bot.fake
        .sent()
        .filter((m) => m.chatId === w.telegramId)
        .map((m) => m.text);
    expect(told(olga)).toEqual([
      'Все места в задаче <b>Photograph a café menu</b> уже заняты, и вашей заявке места не хватило. В Handoff вас ждут другие задачи.',
    ]);
    expect(told(dan)).toEqual([
      'Every place of <b>Photograph a café menu</b> is taken now, so your application did not get one. Other tasks are waiting in Handoff.',
    ]);
    const full = await bot.t.ctx.db
      .selectFrom('notifications')
      .select(['worker_id', 'status'])
      .where('kind', '=', 'batch_full')
      .where('task_id', 'in', batch.taskIds)
      .execute();
    expect(full.map((n) => n.worker_id).sort()).toEqual([olga.id, dan.id].sort());
    expect(full.every((n) => n.status === 'sent')).toBe(true);
    expect(await cardOf(dan, batch.id)).toEqual([]);
  });
});
