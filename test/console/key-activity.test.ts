import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ok } from '../helpers/agentApi.js';
import { DIALECT, type TestApp } from '../helpers/app.js';
import { consoleCall, consoleOk, signInOwner, type TestOwner } from '../helpers/consoleApi.js';
import { createWorker, type TestAgent, type TestWorker } from '../helpers/fixtures.js';
import { createUnthrottledTestApp, toUnits } from '../helpers/moneyChecks.js';
import { submittedTask } from '../helpers/submissionApi.js';

/** Issue 38, scope 4: the owner's view of one key, its spending per day and its activity log. */
describe(`a key's spending and activity in the console on ${DIALECT}`, () => {
  let t: TestApp;
  let worker: TestWorker;
  beforeAll(async () => {
    t = await createUnthrottledTestApp();
    worker = await createWorker(t);
  });
  afterAll(() => t.close());

  /** An owned agent topped up in both currencies, with its first key and a second one. */
  async function ownedAgent(owner: TestOwner) {
    const { agent, apiKey } = await consoleOk(t, owner, 'POST', '/agents', { name: 'Scout' }, 201);
    for (const currency of ['TON', 'USDT']) {
      const res = await call(t, { headers: t.admin }, 'POST', `/admin/agents/${agent.id}/deposits`, {
        amount: '500',
        currency,
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    const [first] = (await consoleOk(t, owner, 'GET', `/agents/${agent.id}`)).keys;
    const second = await consoleOk(t, owner, 'POST', `/agents/${agent.id}/keys`, { name: 'second' }, 201);
    const asKey = (key: string): TestAgent => ({
      id: agent.id,
      apiKey: key,
      headers: { authorization: `Bearer ${key}` },
    });
    return {
      agentId: agent.id as string,
      keyId: first.id as string,
      key: asKey(apiKey),
      otherKeyId: second.key.id as string,
      other: asKey(second.apiKey),
    };
  }

  const post = async (agent: TestAgent, title: string, reward: string, currency = 'TON') =>
    (await ok(t, agent, 'POST', '/tasks', { title, description: 'Of the hall', reward, currency }, 201)).task
      .id as string;

  it("answers 404 for another owner's key, and for a key of another agent of the same owner", async () => {
    const alice = await signInOwner(t);
    const bob = await signInOwner(t);
    const a = await ownedAgent(alice);
    const b = await ownedAgent(bob);
    for (const path of ['spending', 'activity']) {
      const theirs = await consoleCall(t, bob, 'GET', `/agents/${a.agentId}/keys/${a.keyId}/${path}`);
      expect(theirs.statusCode).toBe(404);
      expect(theirs.json().error).toBe('Agent not found');
      // Bob's own agent with Alice's key id: the key is not that agent's.
      const mixed = await consoleCall(t, bob, 'GET', `/agents/${b.agentId}/keys/${a.keyId}/${path}`);
      expect(mixed.statusCode).toBe(404);
      expect(mixed.json().error).toBe('API key not found');
      expect(
        (await consoleCall(t, alice, 'GET', `/agents/${a.agentId}/keys/${a.keyId}/${path}`)).statusCode,
      ).toBe(200);
    }
  });

  it('pages the log newest first with a cursor, finds a task by id or title, and refuses a bad cursor', async () => {
    const owner = await signInOwner(t);
    const a = await ownedAgent(owner);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(await post(a.key, `Photo of hall ${i}`, '1'));
      t.clock.advance(1000);
    }
    await post(a.other, 'Not this key', '1');
    const refunded = await ok(t, a.key, 'DELETE', `/tasks/${ids[0]}`);
    expect(refunded.task.status).toBe('CANCELLED');

    const url = `/agents/${a.agentId}/keys/${a.keyId}/activity`;
    const seen: { id: string; kind: string; taskId: string; at: string }[] = [];
    let cursor: string | null = null;
    do {
      const pageOf: { items: typeof seen; nextCursor: string | null } = await consoleOk(
        t,
        owner,
        'GET',
        `${url}?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(pageOf.items.length).toBeLessThanOrEqual(2);
      seen.push(...pageOf.items);
      cursor = pageOf.nextCursor;
    } while (cursor);
    // Five escrows and one refund; nothing of the other key's task.
    expect(seen.map((s) => s.kind).sort()).toEqual([...Array(5).fill('TASK_ESCROW'), 'REFUND'].sort());
    expect(new Set(seen.map((s) => s.id)).size).toBe(seen.length);
    const order = seen.map((s) => `${s.at} ${s.id}`);
    expect(order).toEqual([...order].sort().reverse());
    expect(seen[0]).toMatchObject({ kind: 'REFUND', taskId: ids[0] });

    const byId = await consoleOk(t, owner, 'GET', `${url}?q=${ids[0]}`);
    expect(byId.items.map((i: { kind: string }) => i.kind)).toEqual(['REFUND', 'TASK_ESCROW']);
    expect(byId.items[0]).toMatchObject({ actor: 'agent', currency: 'TON', amount: '1.3' });
    expect(byId.items[1]).toMatchObject({ actor: 'key', taskTitle: 'Photo of hall 0', amount: '1.3' });
    const byText = await consoleOk(t, owner, 'GET', `${url}?q=${encodeURIComponent('HALL 3')}`);
    expect(byText.items.map((i: { taskId: string }) => i.taskId)).toEqual([ids[3]]);
    // LIKE's wildcards are text here, not patterns.
    expect((await consoleOk(t, owner, 'GET', `${url}?q=%25`)).items).toEqual([]);
    const bad = await consoleCall(t, owner, 'GET', `${url}?cursor=nonsense`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBeTruthy();
  });

  it("shows who completed and paid a bonus, from the task's settlement and the events", async () => {
    const owner = await signInOwner(t);
    const a = await ownedAgent(owner);
    const { taskId } = await submittedTask(t, a.key, worker, { reward: '10', currency: 'USDT' });
    await ok(t, a.key, 'POST', `/tasks/${taskId}/complete`);
    const bonus = await t.app.inject({
      method: 'POST',
      url: `/tasks/${taskId}/bonus`,
      headers: { ...a.key.headers, 'idempotency-key': `b-${taskId}` },
      payload: { amount: '2', reason: 'Great photos' },
    });
    expect(bonus.statusCode, bonus.body).toBe(201);
    const log = await consoleOk(t, owner, 'GET', `/agents/${a.agentId}/keys/${a.keyId}/activity?q=${taskId}`);
    const line = (kind: string) => log.items.find((i: { kind: string }) => i.kind === kind);
    expect(line('TASK_ESCROW')).toMatchObject({ actor: 'key', currency: 'USDT', amount: '13' });
    expect(line('PAYOUT')).toMatchObject({ actor: 'agent', currency: 'USDT', amount: '10' });
    expect(line('BONUS')).toMatchObject({ actor: 'agent', currency: 'USDT', amount: '2' });
    expect(line('task.submitted')).toMatchObject({ actor: 'worker', source: 'event', amount: null });
  });

  it("charts 30 days per currency whose sums equal the key's ledger rows", async () => {
    const first = await signInOwner(t);
    const a = await ownedAgent(first);
    const mine = [await post(a.key, 'Old', '2'), await post(a.key, 'Old USDT', '1.5', 'USDT')];
    t.clock.advance(3 * 86_400_000);
    mine.push(await post(a.key, 'New', '3'), await post(a.key, 'New USDT', '0.25', 'USDT'));
    await ok(t, a.key, 'DELETE', `/tasks/${mine[2]}`);
    await post(a.other, 'Other key', '7');
    // Three days on, the first session has ended: the same wallet signs in again.
    const owner = await signInOwner(t, first.wallet);

    const { days } = await consoleOk(t, owner, 'GET', `/agents/${a.agentId}/keys/${a.keyId}/spending`);
    expect(days).toHaveLength(30);
    expect(days.at(-1).day).toBe(t.clock.now().toISOString().slice(0, 10));
    const { transactions } = await ok(t, a.key, 'GET', '/transactions?limit=100');
    for (const currency of ['TON', 'USDT'] as const) {
      const sum = (types: string[]) =>
        transactions
          .filter(
            (x: { task: { id: string } | null; type: string; currency: string }) =>
              mine.includes(x.task?.id ?? '') && types.includes(x.type) && x.currency === currency,
          )
          .reduce((s: bigint, x: { amount: string }) => s + toUnits(x.amount, currency), 0n);
      const chart = (side: 'spent' | 'refunded') =>
        days.reduce(
          (s: bigint, d: Record<string, Record<string, string>>) =>
            s + toUnits(d[side]![currency]!, currency),
          0n,
        );
      expect(chart('spent'), currency).toBe(sum(['TASK_ESCROW', 'BONUS', 'BONUS_FEE']));
      expect(chart('refunded'), currency).toBe(sum(['REFUND']));
      expect(chart('spent') > 0n).toBe(true);
    }
    expect(days.at(-4).spent).toEqual({ TON: '2.6', USDT: '1.95' });
    expect(days.at(-1)).toMatchObject({
      spent: { TON: '3.9', USDT: '0.325' },
      refunded: { TON: '3.9', USDT: '0' },
    });
  });
});
