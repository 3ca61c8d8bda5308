import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findIdempotencyKey, insertIdempotencyKey } from '../../src/db/repositories/idempotencyKeys.js';
import type { DomainContext } from '../../src/domain/context.js';
import { idempotent } from '../../src/domain/idempotency.js';
import { inTransaction } from '../../src/domain/transaction.js';
import { DIALECT, type TestApp } from '../helpers/app.js';
import { agentMe, assignedTask, createAgent, createWorker, type TestAgent } from '../helpers/fixtures.js';
import { createUnthrottledTestApp } from '../helpers/moneyChecks.js';

const TASK = { title: 'Photo of the town hall', description: 'Today, from the square', reward: '10' };

describe(`Idempotency-Key on ${DIALECT}`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createUnthrottledTestApp({ pgPoolSize: 20 });
  });
  afterAll(() => t.close());

  const post = (agent: TestAgent, url: string, key: string | undefined, payload: unknown, method = 'POST') =>
    t.app.inject({
      method: method as 'POST',
      url,
      headers: { ...agent.headers, ...(key === undefined ? {} : { 'idempotency-key': key }) },
      payload: payload as Record<string, unknown>,
    });

  it('a retried create escrows once and replays the stored answer', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const key = randomUUID();
    const first = await post(agent, '/tasks', key, TASK);
    expect(first.statusCode, first.body).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await post(agent, '/tasks', key, TASK);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    const me = await agentMe(t, agent);
    expect(me.balance).toBe('87');
    expect(me.taskCount).toBe(1);
  });

  it('concurrent duplicates escrow once: the others replay or are told it is in flight', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 12 }, () => post(agent, '/tasks', key, TASK)));
    const fresh = answers.filter((a) => a.statusCode === 201 && !a.headers['idempotent-replayed']);
    const replays = answers.filter((a) => a.headers['idempotent-replayed'] === 'true');
    const inFlight = answers.filter((a) => a.statusCode === 409);
    expect(fresh).toHaveLength(1);
    expect(replays.length + inFlight.length).toBe(11);
    for (const r of replays) expect(r.json()).toEqual(fresh[0]!.json());
    for (const r of inFlight) expect(r.json().error).toMatch(/still in progress/);
    expect((await agentMe(t, agent)).balance).toBe('87');
    const replay = await post(agent, '/tasks', key, TASK);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(fresh[0]!.json());
  });

  it('the same key with a different body is 422 and changes nothing', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const key = randomUUID();
    expect((await post(agent, '/tasks', key, TASK)).statusCode).toBe(201);
    const other = await post(agent, '/tasks', key, { ...TASK, reward: '20' });
    expect(other.statusCode).toBe(422);
    expect(other.json().error).toMatch(/different request/);
    expect((await agentMe(t, agent)).balance).toBe('87');
  });

  it('keys belong to their caller: another agent with the same key gets its own task', async () => {
    const a = await createAgent(t, { deposit: '100' });
    const b = await createAgent(t, { deposit: '100' });
    const key = randomUUID();
    const first = await post(a, '/tasks', key, TASK);
    const second = await post(b, '/tasks', key, TASK);
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(second.json().task.id).not.toBe(first.json().task.id);
  });

  it('a key expires after 24 hours by the clock: the same request then runs again', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const key = randomUUID();
    expect((await post(agent, '/tasks', key, TASK)).statusCode).toBe(201);
    t.clock.advance(24 * 3_600_000 - 1000);
    expect((await post(agent, '/tasks', key, TASK)).headers['idempotent-replayed']).toBe('true');
    t.clock.advance(1000);
    const after = await post(agent, '/tasks', key, TASK);
    expect(after.statusCode).toBe(201);
    expect(after.headers['idempotent-replayed']).toBeUndefined();
    expect((await agentMe(t, agent)).balance).toBe('74');
  });

  it('a failed request releases its key: after a top-up the same key succeeds', async () => {
    const agent = await createAgent(t, { deposit: '5' });
    const key = randomUUID();
    expect((await post(agent, '/tasks', key, TASK)).statusCode).toBe(402);
    const deposit = await t.app.inject({
      method: 'POST',
      url: `/admin/agents/${agent.id}/deposits`,
      headers: { ...t.admin, 'idempotency-key': key },
      payload: { amount: '10' },
    });
    expect(deposit.statusCode).toBe(201);
    expect((await post(agent, '/tasks', key, TASK)).statusCode).toBe(201);
    expect((await agentMe(t, agent)).balance).toBe('2');
  });

  it('a malformed key is 400', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const res = await post(agent, '/tasks', 'x'.repeat(256), TASK);
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].path).toBe('Idempotency-Key');
  });

  it('operator deposits, completion, ratings and messages replay instead of repeating', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const depositKey = randomUUID();
    const deposits = await Promise.all(
      [1, 2, 3].map(() =>
        t.app.inject({
          method: 'POST',
          url: `/admin/agents/${agent.id}/deposits`,
          headers: { ...t.admin, 'idempotency-key': depositKey },
          payload: { amount: '50' },
        }),
      ),
    );
    expect(deposits.filter((d) => d.statusCode === 201 && !d.headers['idempotent-replayed'])).toHaveLength(1);
    expect((await agentMe(t, agent)).balance).toBe('150');

    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker);
    const msgKey = randomUUID();
    const m1 = await post(agent, `/chat/${taskId}/messages`, msgKey, { content: 'hello' });
    const m2 = await post(agent, `/chat/${taskId}/messages`, msgKey, { content: 'hello' });
    expect(m2.headers['idempotent-replayed']).toBe('true');
    expect(m2.json().message.id).toBe(m1.json().message.id);
    const messages = await t.app.inject({
      method: 'GET',
      url: `/chat/${taskId}/messages`,
      headers: agent.headers,
    });
    expect(messages.json().messages).toHaveLength(1);

    const doneKey = randomUUID();
    const c1 = await post(agent, `/tasks/${taskId}/complete`, doneKey, undefined);
    expect(c1.statusCode, c1.body).toBe(200);
    const c2 = await post(agent, `/tasks/${taskId}/complete`, doneKey, undefined);
    expect(c2.statusCode).toBe(200);
    expect(c2.headers['idempotent-replayed']).toBe('true');
    // The stored answer is the final one, with the chain hash learnt after the commit.
    expect(c2.json()).toEqual(c1.json());
    expect(c2.json().payment.txHash).toBeTruthy();
    // Without the key, a second completion is the usual conflict.
    expect((await post(agent, `/tasks/${taskId}/complete`, undefined, undefined)).statusCode).toBe(409);

    const rateKey = randomUUID();
    const r1 = await post(agent, `/tasks/${taskId}/rate`, rateKey, { score: 5 });
    const r2 = await post(agent, `/tasks/${taskId}/rate`, rateKey, { score: 5 });
    expect(r1.statusCode).toBe(201);
    expect(r2.statusCode).toBe(201);
    expect(r2.json()).toEqual(r1.json());
  });

  it('refund, accepting an application and answering offers replay', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const task = (await post(agent, '/tasks', undefined, TASK)).json().task;
    const refundKey = randomUUID();
    const f1 = await post(agent, `/tasks/${task.id}/refund`, refundKey, { reason: 'changed plans' });
    const f2 = await post(agent, `/tasks/${task.id}/refund`, refundKey, { reason: 'changed plans' });
    expect(f1.statusCode).toBe(200);
    expect(f2.headers['idempotent-replayed']).toBe('true');
    expect(f2.json()).toEqual(f1.json());
    expect((await agentMe(t, agent)).balance).toBe('100');

    const open = (await post(agent, '/tasks', undefined, TASK)).json().task;
    const applied = await t.app.inject({
      method: 'POST',
      url: `/worker/tasks/${open.id}/applications`,
      headers: worker.headers,
      payload: { message: 'me' },
    });
    const acceptKey = randomUUID();
    const url = `/applications/${applied.json().application.id}`;
    const a1 = await post(agent, url, acceptKey, { status: 'ACCEPTED' }, 'PATCH');
    const a2 = await post(agent, url, acceptKey, { status: 'ACCEPTED' }, 'PATCH');
    expect(a1.statusCode).toBe(200);
    expect(a2.headers['idempotent-replayed']).toBe('true');
    expect(a2.json()).toEqual(a1.json());

    const offered = (await post(agent, '/tasks', undefined, { ...TASK, assignToUserId: worker.id })).json()
      .task;
    const offerKey = randomUUID();
    const accept = () =>
      t.app.inject({
        method: 'POST',
        url: `/worker/offers/${offered.id}/accept`,
        headers: { ...worker.headers, 'idempotency-key': offerKey },
      });
    const o1 = await accept();
    const o2 = await accept();
    expect(o1.statusCode, o1.body).toBe(200);
    expect(o2.headers['idempotent-replayed']).toBe('true');
    expect(o2.json()).toEqual(o1.json());
  });

  it('the domain facility runs an effect once per key for any caller (as the MCP tools use it)', async () => {
    const request = { scope: 'test:facility', key: randomUUID(), fingerprint: 'f1' };
    let runs = 0;
    const effect = async () => {
      runs++;
      return runs;
    };
    const respond = (n: number) => ({ status: 200, body: { n } });
    const first = await idempotent(t.ctx, request, effect, respond);
    const second = await idempotent(t.ctx, request, effect, respond);
    expect(first).toEqual({ status: 200, body: { n: 1 }, replayed: false });
    expect(second).toEqual({ status: 200, body: { n: 1 }, replayed: true });
    expect(runs).toBe(1);
    await expect(idempotent(t.ctx, { ...request, fingerprint: 'f2' }, effect, respond)).rejects.toThrow(
      /different request/,
    );
  });

  it('a running key left by a crashed holder is taken over once its lock lapses', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const key = randomUUID();
    const first = await post(agent, '/tasks', key, TASK);
    const row = await findIdempotencyKey(t.ctx.db, `agent:${agent.id}`, key);
    // The same request under a second key, left running as a process that died before its commit.
    const now = t.clock.now();
    await insertIdempotencyKey(t.ctx.db, {
      ...row!,
      key: `${key}-crashed`,
      status: 'running',
      lock_token: 'dead',
      locked_until: new Date(now.getTime() + 60_000).toISOString(),
      response_status: null,
      response_body: null,
    });
    expect((await post(agent, '/tasks', `${key}-crashed`, TASK)).statusCode).toBe(409);
    t.clock.advance(60_000);
    const taken = await post(agent, '/tasks', `${key}-crashed`, TASK);
    expect(taken.statusCode).toBe(201);
    expect(taken.json().task.id).not.toBe(first.json().task.id);
    expect((await agentMe(t, agent)).balance).toBe('74');
  });

  it("the key completes in the effect's own transaction: a failure after its commit still replays", async () => {
    const request = { scope: 'test:bound', key: randomUUID(), fingerprint: 'f' };
    let runs = 0;
    const effect = async (c: DomainContext) => {
      const n = await inTransaction(c.db, async () => ++runs);
      // As a crash after the commit would: the effect's work and its stored answer are in.
      throw new Error(`failed after transaction ${n} committed`);
    };
    const respond = (n: number) => ({ status: 200, body: { n } });
    await expect(idempotent(t.ctx, request, effect, respond)).rejects.toThrow('after transaction 1');
    expect(await idempotent(t.ctx, request, effect, respond)).toEqual({
      status: 200,
      body: { n: 1 },
      replayed: true,
    });
    expect(runs).toBe(1);
  });

  it('work an effect leaves running binds no key once the effect has settled', async () => {
    const request = { scope: 'test:late', key: randomUUID(), fingerprint: 'f' };
    let late: Promise<string> | null = null;
    const effect = async (c: DomainContext) => {
      // A read-only outcome, and a transaction of its own started for later on the same handle.
      late = new Promise<void>((resolve) => setTimeout(resolve, 20)).then(() =>
        inTransaction(c.db, async () => 'late'),
      );
      return 'answer';
    };
    const first = await idempotent(t.ctx, request, effect, (body: string) => ({ status: 200, body }));
    expect(first).toEqual({ status: 200, body: 'answer', replayed: false });
    // A late transaction that tried to complete the finished key would have been rolled back.
    expect(await late).toBe('late');
    const row = await findIdempotencyKey(t.ctx.db, request.scope, request.key);
    expect(row?.response_body).toBe(JSON.stringify('answer'));
  });

  it('an effect whose transaction rolls back leaves no key behind', async () => {
    const request = { scope: 'test:rollback', key: randomUUID(), fingerprint: 'f' };
    const failing = () =>
      inTransaction(t.ctx.db, async () => {
        throw new Error('boom');
      });
    await expect(idempotent(t.ctx, request, failing, () => ({ status: 200, body: {} }))).rejects.toThrow(
      'boom',
    );
    expect(await findIdempotencyKey(t.ctx.db, request.scope, request.key)).toBeUndefined();
  });
});
