import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireApprovals } from '../../src/domain/agents/approvals.js';
import { call, ok } from '../helpers/agentApi.js';
import type { TestApp } from '../helpers/app.js';
import { consoleCall, consoleOk, signInOwner, type TestOwner } from '../helpers/consoleApi.js';
import { deposit, expectBooksBalanced } from '../helpers/fixtures.js';
import { createUnthrottledTestApp } from '../helpers/moneyChecks.js';

/** Approvals (issue 38): a task above its key's approvalAbove waits for the owner. */
let t: TestApp;

beforeAll(async () => {
  t = await createUnthrottledTestApp();
});
afterAll(async () => {
  await t?.close();
});

interface Owned {
  owner: TestOwner;
  agentId: string;
  keyId: string;
  headers: { authorization: string };
}

/** An owner's agent with `balance` TON and approvalAbove 13 TON (a reward of 10 is exactly 13). */
async function ownedAgent(balance = '100', owner?: TestOwner): Promise<Owned> {
  const o = owner ?? (await signInOwner(t));
  const { agent, apiKey } = await consoleOk(t, o, 'POST', '/agents', { name: 'Scout' }, 201);
  if (balance !== '0') await deposit(t, agent.id, balance);
  const { keys } = await consoleOk(t, o, 'GET', `/agents/${agent.id}`);
  await consoleOk(t, o, 'PATCH', `/agents/${agent.id}/keys/${keys[0].id}`, {
    spendPolicy: { TON: { approvalAbove: '13', dailyLimit: '100' } },
  });
  return { owner: o, agentId: agent.id, keyId: keys[0].id, headers: { authorization: `Bearer ${apiKey}` } };
}

const body = (reward: string) => ({ title: 'Photo', description: 'Of the hall', reward });

function post(a: Owned, reward: string, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: '/tasks',
    headers: { ...a.headers, ...headers },
    payload: body(reward),
  });
}

async function pending(a: Owned, reward = '20') {
  const res = await post(a, reward);
  expect(res.statusCode, res.body).toBe(202);
  return res.json().approval;
}

async function me(a: Owned) {
  const res = await ok(t, a, 'GET', '/agents/me');
  return { ...res.agent, apiKey: res.apiKey };
}

/** Puts an approval's expiry at `at` (moving the clock a day would end the owner's session). */
async function expireAt(id: string, at: Date) {
  await t.ctx.db
    .updateTable('approvals')
    .set({ expires_at: at.toISOString() })
    .where('id', '=', id)
    .execute();
}

async function eventsOf(agentId: string, type: string) {
  return t.ctx.db
    .selectFrom('events')
    .selectAll()
    .where('agent_id', '=', agentId)
    .where('type', '=', type)
    .execute();
}

describe('asking', () => {
  it('a task at approvalAbove is created; above it, 202 with a PENDING approval and nothing escrowed', async () => {
    const a = await ownedAgent();
    expect((await post(a, '10')).statusCode).toBe(201);
    const res = await post(a, '10.000000001');
    expect(res.statusCode, res.body).toBe(202);
    const { approval } = res.json();
    expect(approval).toMatchObject({
      status: 'PENDING',
      task: body('10.000000001'),
      amount: '13.000000001',
      currency: 'TON',
      taskId: null,
      failure: null,
      decidedAt: null,
    });
    expect(approval.id).toMatch(/^apr_/);
    expect(Date.parse(approval.expiresAt) - t.clock.now().getTime()).toBe(24 * 3_600_000);
    const after = await me(a);
    expect(after.balance).toBe('87');
    expect(after.apiKey.spending.TON.spentToday).toBe('13');
    expect((await ok(t, a, 'GET', `/approvals/${approval.id}`)).approval).toEqual(approval);
    const list = await ok(t, a, 'GET', '/approvals?status=PENDING');
    expect(list.approvals.map((x: { id: string }) => x.id)).toEqual([approval.id]);
    expect(list.hasMore).toBe(false);
  });

  it('is idempotent with Idempotency-Key: a retry answers the same approval, none is added', async () => {
    const a = await ownedAgent();
    const first = await post(a, '20', { 'idempotency-key': 'apr-1' });
    const again = await post(a, '20', { 'idempotency-key': 'apr-1' });
    expect(first.statusCode).toBe(202);
    expect(again.statusCode).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().approval.id).toBe(first.json().approval.id);
    expect((await ok(t, a, 'GET', '/approvals')).approvals).toHaveLength(1);
  });

  it('refuses at once what could not be created: 402 short balance, 403 other limits, 400 bad input', async () => {
    const poor = await ownedAgent('20');
    const short = await post(poor, '20');
    expect(short.statusCode).toBe(402);
    expect(short.json().message).toMatch(/approval/);
    const a = await ownedAgent();
    const over = await post(a, '80');
    expect(over.statusCode).toBe(403);
    expect(over.json().limit).toBe('dailyLimit');
    expect((await post(a, '-1')).statusCode).toBe(400);
    expect((await ok(t, a, 'GET', '/approvals')).approvals).toHaveLength(0);
  });

  it("another agent's approval is 403; an unknown one 404", async () => {
    const a = await ownedAgent();
    const b = await ownedAgent();
    const approval = await pending(a);
    expect((await call(t, b, 'GET', `/approvals/${approval.id}`)).statusCode).toBe(403);
    expect((await call(t, a, 'GET', '/approvals/apr_nope')).statusCode).toBe(404);
  });

  it('a batch above approvalAbove is refused with a sentence saying only single tasks wait', async () => {
    const a = await ownedAgent();
    const res = await call(t, a, 'POST', '/batches', { tasks: [body('20')] });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ limit: 'approvalAbove' });
    expect(res.json().error).toMatch(/not a batch/);
  });
});

describe('deciding', () => {
  it('approve: the task is created and escrowed now, counted against the key, approval.approved with its id', async () => {
    const a = await ownedAgent();
    const approval = await pending(a);
    const queue = await consoleOk(t, a.owner, 'GET', '/approvals');
    expect(queue.approvals).toEqual([
      expect.objectContaining({ id: approval.id, agent: { id: a.agentId, name: 'Scout' } }),
    ]);
    t.clock.advance(60_000);
    const { approval: approved } = await consoleOk(t, a.owner, 'POST', `/approvals/${approval.id}/approve`);
    expect(approved).toMatchObject({ status: 'APPROVED', decidedAt: t.clock.now().toISOString() });
    expect(approved.taskId).toMatch(/^tsk_/);
    const { task } = await ok(t, a, 'GET', `/tasks/${approved.taskId}`);
    expect(task).toMatchObject({ status: 'FUNDED', reward: '20', totalAmount: '26' });
    const after = await me(a);
    expect(after.balance).toBe('74');
    expect(after.apiKey.spending.TON.spentToday).toBe('26');
    const events = await eventsOf(a.agentId, 'approval.approved');
    expect(events).toHaveLength(1);
    expect(events[0]!.task_id).toBe(approved.taskId);
    expect((await consoleOk(t, a.owner, 'GET', '/approvals')).approvals).toEqual([]);
    const twice = await consoleCall(t, a.owner, 'POST', `/approvals/${approval.id}/approve`);
    expect(twice.statusCode).toBe(409);
    expect(twice.json().error).toMatch(/already approved/);
    await expectBooksBalanced(t);
  });

  it('decline: nothing escrowed, approval.declined; then approve is 409', async () => {
    const a = await ownedAgent();
    const approval = await pending(a);
    const { approval: declined } = await consoleOk(t, a.owner, 'POST', `/approvals/${approval.id}/decline`);
    expect(declined).toMatchObject({ status: 'DECLINED', taskId: null });
    expect((await me(a)).balance).toBe('100');
    expect(await eventsOf(a.agentId, 'approval.declined')).toHaveLength(1);
    expect((await consoleCall(t, a.owner, 'POST', `/approvals/${approval.id}/approve`)).statusCode).toBe(409);
  });

  it('approve with the balance no longer covering it: FAILED with the 402 recorded, nothing escrowed', async () => {
    const a = await ownedAgent('30');
    const approval = await pending(a);
    expect((await post(a, '10')).statusCode).toBe(201); // 13 of 30 used, 17 left for 26
    const { approval: failed } = await consoleOk(t, a.owner, 'POST', `/approvals/${approval.id}/approve`);
    expect(failed).toMatchObject({ status: 'FAILED', taskId: null, failure: { status: 402 } });
    expect(failed.failure.error).toMatch(/Insufficient balance/);
    expect((await me(a)).balance).toBe('17');
    expect((await ok(t, a, 'GET', `/approvals/${approval.id}`)).approval.status).toBe('FAILED');
    expect(await eventsOf(a.agentId, 'approval.failed')).toHaveLength(1);
  });

  it("the console's list: the queue with agent and key names, and closed ones apart, a due one reading EXPIRED", async () => {
    const a = await ownedAgent();
    const [approved, declined, due, waiting] = [
      await pending(a),
      await pending(a),
      await pending(a),
      await pending(a),
    ];
    await consoleOk(t, a.owner, 'POST', `/approvals/${approved.id}/approve`);
    t.clock.advance(1_000);
    await consoleOk(t, a.owner, 'POST', `/approvals/${declined.id}/decline`);
    // Its time is up but the expiry job has not run: out of the queue, in the history as EXPIRED.
    await expireAt(due.id, t.clock.now());
    const list = await consoleOk(t, a.owner, 'GET', '/approvals');
    expect(list.now).toBe(t.clock.now().toISOString());
    expect(list.approvals).toEqual([
      expect.objectContaining({
        id: waiting.id,
        status: 'PENDING',
        agent: { id: a.agentId, name: 'Scout' },
        key: { id: a.keyId, name: 'default', hint: expect.any(String) },
      }),
    ]);
    expect(list.recent.map((x: { id: string; status: string }) => [x.id, x.status])).toEqual([
      [due.id, 'EXPIRED'],
      [declined.id, 'DECLINED'],
      [approved.id, 'APPROVED'],
    ]);
    expect(list.recent[2].taskId).toMatch(/^tsk_/);
  });

  it("one owner cannot see or decide another owner's approvals (404)", async () => {
    const a = await ownedAgent();
    const other = await signInOwner(t);
    const approval = await pending(a);
    expect((await consoleOk(t, other, 'GET', '/approvals')).approvals).toEqual([]);
    for (const action of ['approve', 'decline']) {
      expect((await consoleCall(t, other, 'POST', `/approvals/${approval.id}/${action}`)).statusCode).toBe(
        404,
      );
    }
    expect((await ok(t, a, 'GET', `/approvals/${approval.id}`)).approval.status).toBe('PENDING');
  });

  it('a key revoked while its approval waits: approving declines it instead', async () => {
    const a = await ownedAgent();
    const approval = await pending(a);
    await consoleOk(t, a.owner, 'POST', `/agents/${a.agentId}/keys`, { name: 'spare' }, 201);
    await consoleOk(t, a.owner, 'POST', `/agents/${a.agentId}/keys/${a.keyId}/revoke`);
    const { approval: declined } = await consoleOk(t, a.owner, 'POST', `/approvals/${approval.id}/approve`);
    expect(declined.status).toBe('DECLINED');
    expect(declined.failure.error).toMatch(/revoked/);
  });
});

describe('expiry and races', () => {
  it('expires when its time is up (approval.expired); approving after that is 409; the job skips a poisoned row', async () => {
    const a = await ownedAgent();
    const approval = await pending(a);
    await expireAt(approval.id, new Date(t.clock.now().getTime() + 1));
    await expireApprovals(t.ctx);
    expect((await ok(t, a, 'GET', `/approvals/${approval.id}`)).approval.status).toBe('PENDING');
    t.clock.advance(1);
    // Before the job runs, an approve already sees the time is up.
    const late = await consoleCall(t, a.owner, 'POST', `/approvals/${approval.id}/approve`);
    expect(late.statusCode).toBe(409);
    expect(late.json().error).toMatch(/expired/);
    const b = await ownedAgent();
    const other = await pending(b);
    await expireAt(other.id, t.clock.now());
    const failures: string[] = [];
    let calls = 0;
    const db = t.ctx.db;
    // The first expiry transaction fails (a poisoned row); the job goes on with the next.
    const poisonedDb = new Proxy(db, {
      get(target, prop) {
        if (prop === 'transaction' && calls++ === 0) throw new Error('poisoned');
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    await expireApprovals({ ...t.ctx, db: poisonedDb }, (id) => failures.push(id));
    expect(failures).toHaveLength(1);
    await expireApprovals(t.ctx);
    for (const [agent, id] of [
      [a, approval.id],
      [b, other.id],
    ] as const) {
      expect((await ok(t, agent, 'GET', `/approvals/${id}`)).approval.status).toBe('EXPIRED');
      expect(await eventsOf(agent.agentId, 'approval.expired')).toHaveLength(1);
    }
    expect((await me(a)).balance).toBe('100');
  });

  it('10 concurrent approves create one task and escrow once', async () => {
    const a = await ownedAgent();
    const approval = await pending(a);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => consoleCall(t, a.owner, 'POST', `/approvals/${approval.id}/approve`)),
    );
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes.filter((c) => c === 200)).toHaveLength(1);
    expect(codes.filter((c) => c === 409)).toHaveLength(9);
    expect((await me(a)).balance).toBe('74');
    const tasks = await t.ctx.db.selectFrom('tasks').select('id').where('agent_id', '=', a.agentId).execute();
    expect(tasks).toHaveLength(1);
    expect(await eventsOf(a.agentId, 'approval.approved')).toHaveLength(1);
    await expectBooksBalanced(t);
  });

  it('approve racing decline, and approve racing the expiry: exactly one decision wins', async () => {
    const a = await ownedAgent();
    const approval = await pending(a);
    const [approve, decline] = await Promise.all([
      consoleCall(t, a.owner, 'POST', `/approvals/${approval.id}/approve`),
      consoleCall(t, a.owner, 'POST', `/approvals/${approval.id}/decline`),
    ]);
    expect([approve.statusCode, decline.statusCode].sort()).toEqual([200, 409]);
    for (const round of [0, 1, 2]) {
      const b = await ownedAgent();
      const next = await pending(b);
      await expireAt(next.id, new Date(t.clock.now().getTime() + 1));
      const [res] = await Promise.all([
        consoleCall(t, b.owner, 'POST', `/approvals/${next.id}/approve`),
        (async () => {
          if (round > 0) await new Promise((r) => setTimeout(r, round));
          t.clock.advance(1);
          return expireApprovals(t.ctx);
        })(),
      ]);
      const final = (await ok(t, b, 'GET', `/approvals/${next.id}`)).approval;
      expect(['APPROVED', 'EXPIRED']).toContain(final.status);
      expect(res.statusCode).toBe(final.status === 'APPROVED' ? 200 : 409);
      const tasks = await t.ctx.db
        .selectFrom('tasks')
        .select('id')
        .where('agent_id', '=', b.agentId)
        .execute();
      expect(tasks).toHaveLength(final.status === 'APPROVED' ? 1 : 0);
      expect((await me(b)).balance).toBe(final.status === 'APPROVED' ? '74' : '100');
    }
    await expectBooksBalanced(t);
  });
});
