import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, eventsOfType, ledger, ok } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import {
  agentMe,
  createAgent,
  createWorker,
  expectBooksBalanced,
  type TestAgent,
} from '../helpers/fixtures.js';

let t: TestApp;
let admin: { headers: Record<string, string> };
beforeAll(async () => {
  t = await createTestApp();
  admin = { headers: t.admin };
});
afterAll(() => t.close());

const HELD = 'Climb onto the roof and film the sunset';

async function heldTask(agent: TestAgent, extra: Record<string, unknown> = {}) {
  const created = await ok(
    t,
    agent,
    'POST',
    '/tasks',
    { title: HELD, description: 'Details in the chat', reward: '5', ...extra },
    201,
  );
  expect(created.task.moderation.status).toBe('PENDING');
  return created.task.id as string;
}

describe('the operators’ moderation queue', () => {
  it('lists held tasks oldest first with their rule, paged; decided ones leave it', async () => {
    const agent = await createAgent(t, { name: 'Queue agent', deposit: '100' });
    const first = await heldTask(agent);
    const second = await heldTask(agent);
    const page1 = await ok(t, admin, 'GET', '/admin/moderation?limit=1');
    const all = await ok(t, admin, 'GET', '/admin/moderation?limit=100');
    const ids = all.tasks.map((x: { task: { id: string } }) => x.task.id);
    expect(ids.indexOf(first)).toBeLessThan(ids.indexOf(second));
    expect(page1.hasMore).toBe(true);
    const page2 = await ok(
      t,
      admin,
      'GET',
      `/admin/moderation?limit=100&cursor=${encodeURIComponent(page1.nextCursor)}`,
    );
    expect(page2.tasks.map((x: { task: { id: string } }) => x.task.id)).not.toContain(page1.tasks[0].task.id);
    const item = all.tasks.find((x: { task: { id: string } }) => x.task.id === first);
    expect(item).toMatchObject({
      task: { title: HELD, status: 'FUNDED', reward: '5', totalAmount: '6.5', currency: 'TON' },
      agent: { id: agent.id, name: 'Queue agent' },
      rule: 'dangerous-acts',
    });
    await ok(t, admin, 'POST', `/admin/moderation/${first}/approve`, {});
    const after = await ok(t, admin, 'GET', '/admin/moderation?limit=100');
    expect(after.tasks.map((x: { task: { id: string } }) => x.task.id)).not.toContain(first);
    expect((await call(t, admin, 'GET', '/admin/moderation?cursor=nonsense')).statusCode).toBe(400);
    expect((await call(t, agent, 'GET', '/admin/moderation')).statusCode).toBe(401);
  });

  it('approve: workers see the task, the log says who; a second decision is a 409', async () => {
    const agent = await createAgent(t, { name: 'Approved agent', deposit: '100' });
    const worker = await createWorker(t);
    const id = await heldTask(agent);
    const done = await ok(t, admin, 'POST', `/admin/moderation/${id}/approve`, {
      note: 'Roof terrace with railings',
      operator: 'maria',
    });
    expect(done).toEqual({
      task: {
        id,
        status: 'FUNDED',
        paymentStatus: expect.any(String),
        moderation: { status: 'APPROVED', rule: 'dangerous-acts' },
      },
      refund: null,
    });
    expect((await call(t, worker, 'GET', `/worker/tasks/${id}`)).statusCode).toBe(200);
    expect((await ok(t, agent, 'GET', `/tasks/${id}`)).task.moderation.status).toBe('APPROVED');
    const log = await t.ctx.db.selectFrom('moderation_log').selectAll().where('task_id', '=', id).execute();
    expect(log.map((r) => [r.action, r.operator])).toEqual([
      ['held', null],
      ['approved', 'maria'],
    ]);
    const again = await call(t, admin, 'POST', `/admin/moderation/${id}/reject`, { reason: 'no' });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toContain('already approved');
    expect((await call(t, admin, 'POST', '/admin/moderation/tsk_nothing/approve', {})).statusCode).toBe(404);
  });

  it('approve of a held direct offer lets its worker see and accept it', async () => {
    const agent = await createAgent(t, { name: 'Offer agent', deposit: '100' });
    const worker = await createWorker(t);
    const id = await heldTask(agent, { assignToUserId: worker.id });
    expect((await ok(t, worker, 'GET', '/worker/offers')).tasks).toEqual([]);
    await ok(t, admin, 'POST', `/admin/moderation/${id}/approve`, {});
    const offers = await ok(t, worker, 'GET', '/worker/offers');
    expect(offers.tasks.map((x: { id: string }) => x.id)).toEqual([id]);
  });

  it('reject: refunded exactly as a refund (REFUND row, refund.processed), task.rejected_by_review, counted as a strike', async () => {
    const agent = await createAgent(t, { name: 'Rejected agent', deposit: '100' });
    const before = await agentMe(t, agent);
    const id = await heldTask(agent);
    expect(
      (await call(t, admin, 'POST', `/admin/moderation/${id}/reject`, { reason: '  ' })).statusCode,
    ).toBe(400);
    const done = await ok(t, admin, 'POST', `/admin/moderation/${id}/reject`, {
      reason: 'Work at height without safety equipment',
    });
    expect(done).toEqual({
      task: {
        id,
        status: 'CANCELLED',
        paymentStatus: 'REFUNDED',
        moderation: { status: 'REJECTED', rule: 'dangerous-acts' },
      },
      refund: { amount: '6.5', currency: 'TON', destination: 'agent_balance' },
    });
    const after = await agentMe(t, agent);
    expect(after.balance).toBe(before.balance);
    expect(after.lockedByTasks).toBe('0');
    const refunds = await ledger(t, agent, 'REFUND');
    expect(refunds.map((r) => r.task?.id)).toEqual([id]);
    const task = (await ok(t, agent, 'GET', `/tasks/${id}`)).task;
    expect(task.moderation).toEqual({ status: 'REJECTED', rule: 'dangerous-acts' });
    expect(task.settlement).toMatchObject({ refunded: '6.5', decidedBy: 'operator' });
    expect(await eventsOfType(t, id, 'refund.processed')).toHaveLength(1);
    expect(await eventsOfType(t, id, 'task.rejected_by_review')).toEqual([
      {
        taskId: id,
        rule: 'dangerous-acts',
        reason: 'Work at height without safety equipment',
        refund: {
          amount: '6.5',
          destination: 'agent_balance',
          reason: 'Work at height without safety equipment',
          currency: 'TON',
        },
      },
    ]);
    expect((await call(t, admin, 'POST', `/admin/moderation/${id}/approve`, {})).statusCode).toBe(409);
    await expectBooksBalanced(t);
  });

  it('approve and reject racing: exactly one wins', async () => {
    for (let round = 0; round < 4; round++) {
      const agent = await createAgent(t, { name: `Decider ${round}`, deposit: '100' });
      const id = await heldTask(agent);
      const [approve, reject] = await Promise.all([
        call(t, admin, 'POST', `/admin/moderation/${id}/approve`, {}),
        call(t, admin, 'POST', `/admin/moderation/${id}/reject`, { reason: 'Unsafe' }),
      ]);
      expect([approve.statusCode, reject.statusCode].sort()).toEqual([200, 409]);
      const task = (await ok(t, agent, 'GET', `/tasks/${id}`)).task;
      expect(task.moderation.status).toBe(approve.statusCode === 200 ? 'APPROVED' : 'REJECTED');
      expect(await ledger(t, agent, 'REFUND')).toHaveLength(reject.statusCode === 200 ? 1 : 0);
    }
    await expectBooksBalanced(t);
  });

  it('approve, reject and the agent’s own cancel racing: one refund, the books exact', async () => {
    // An approved task is an ordinary task its agent may cancel, so approve-then-cancel both
    // succeed; reject and cancel both end the task, so only one of them can.
    for (let round = 0; round < 4; round++) {
      const agent = await createAgent(t, { name: `Racer ${round}`, deposit: '100' });
      const before = await agentMe(t, agent);
      const id = await heldTask(agent);
      const results = await Promise.all([
        call(t, admin, 'POST', `/admin/moderation/${id}/approve`, {}),
        call(t, admin, 'POST', `/admin/moderation/${id}/reject`, { reason: 'Unsafe' }),
        call(t, agent, 'DELETE', `/tasks/${id}`),
      ]);
      const won = results.map((r) => r.statusCode !== 409);
      for (const r of results) expect([200, 204, 409], r.body).toContain(r.statusCode);
      expect([
        [false, true, false],
        [false, false, true],
        [true, false, true],
      ]).toContainEqual(won);
      const task = (await ok(t, agent, 'GET', `/tasks/${id}`)).task;
      expect(task.status).toBe('CANCELLED');
      expect(task.moderation.status).toBe(won[1] ? 'REJECTED' : won[0] ? 'APPROVED' : 'PENDING');
      expect(await agentMe(t, agent)).toMatchObject({ balance: before.balance, lockedByTasks: '0' });
      expect(await ledger(t, agent, 'REFUND')).toHaveLength(1);
      expect(await eventsOfType(t, id, 'refund.processed')).toHaveLength(1);
      expect(await eventsOfType(t, id, 'task.rejected_by_review')).toHaveLength(won[1] ? 1 : 0);
    }
    await expectBooksBalanced(t);
  });
});
