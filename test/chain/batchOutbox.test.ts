import { Address, toNano } from '@ton/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listDueBatches } from '../../src/db/repositories/chainBatches.js';
import { claimDue } from '../../src/db/repositories/outbox.js';
import { followWallet } from '../../src/domain/chain/chainFollower.js';
import { chainBatchKind, prepareBatch, runChainSender } from '../../src/domain/chain/chainSender.js';
import { attemptRow, LEASE_MARGIN_MS, runDue } from '../../src/outbox/runner.js';
import { ok } from '../helpers/agentApi.js';
import { agentMe, assignedTask, createAgent, type TestAgent } from '../helpers/fixtures.js';
import {
  createLiveTestApp,
  createLiveWorker,
  type LiveTestApp,
  roundsUntil,
  storedBatch,
} from '../helpers/liveChain.js';

const WALLET_TIMEOUT_SEC = 60;

/**
 * Network mode's batches are outbox work: the one runner (src/outbox/runner.ts) claims each
 * persisted batch by compare-and-set, sends it, sends it again until the follower sees it land,
 * and settles it `expired` (its transfers released, in the same transaction) only once it can no
 * longer land. Each case ends with the worker paid exactly once, read from the chain.
 */
describe('chain batches on the outbox runner', () => {
  let l: LiveTestApp;
  beforeAll(async () => {
    l = await createLiveTestApp({ walletTimeoutSec: WALLET_TIMEOUT_SEC });
  }, 180_000); // a fresh fake chain, app and mnemonic on a busy 2-core machine
  afterAll(() => l.close());
  beforeEach(() => l.fake.clearFaults());

  const sends = () => l.fake.requests.get('sendBoc') ?? 0;
  const kind = () => chainBatchKind(l.t.ctx, l.live);
  const nowIso = () => l.t.clock.now().toISOString();

  async function fundedAgent(): Promise<TestAgent> {
    const agent = await createAgent(l.t);
    await l.fake.sendFromFaucet(l.live.wallet.address, toNano('20'), agent.id);
    await roundsUntil(l, async () => (await agentMe(l.t, agent)).balance === '20');
    return agent;
  }

  /** A completed task: its payout and fee are pending chain transfers, not yet in a batch. */
  async function completed(agent: TestAgent) {
    const worker = await createLiveWorker(l.t);
    const { taskId } = await assignedTask(l.t, agent, worker, { reward: '10' });
    await ok(l.t, agent, 'POST', `/tasks/${taskId}/complete`);
    return { worker, taskId };
  }

  /** The batches that have carried the task's transfers, and the transfers' current batch. */
  async function batchesOf(taskId: string) {
    const transfers = await l.t.ctx.db
      .selectFrom('chain_transfers')
      .innerJoin('transactions', 'transactions.id', 'chain_transfers.txn_id')
      .where('transactions.task_id', '=', taskId)
      .select(['chain_transfers.batch_id', 'transactions.status'])
      .execute();
    const current = await l.t.ctx.db
      .selectFrom('chain_batches')
      .selectAll()
      .where('id', 'in', [...new Set(transfers.map((t) => t.batch_id ?? ''))])
      .execute();
    return { transfers, current };
  }

  async function confirmed(taskId: string) {
    const { transfers } = await batchesOf(taskId);
    return transfers.length === 2 && transfers.every((t) => t.status === 'confirmed');
  }

  async function expectPaidOnce(job: { worker: { wallet: string } }) {
    expect(await l.fake.balance(Address.parse(job.worker.wallet))).toBe(toNano('10'));
  }

  it('two instances that listed the same batch send it once: the claim is a compare-and-set', async () => {
    const job = await completed(await fundedAgent());
    expect(await prepareBatch(l.t.ctx, l.live)).toBe(2);
    const [batch] = await listDueBatches(l.t.ctx.db, nowIso(), 10);
    expect(batch).toMatchObject({ status: 'pending', attempts: 0, transfer_count: 2 });
    // A resend waits as in production (resendMs >= 1 s; the tests' app uses 0), so the batch
    // is not due again until the clock moves (the next test covers a zero wait).
    const waiting = chainBatchKind(l.t.ctx, { ...l.live, resendMs: 1_000 });
    const before = sends();
    await Promise.all([attemptRow(l.t.ctx, waiting, batch!), attemptRow(l.t.ctx, waiting, batch!)]);
    expect(sends() - before).toBe(1);
    expect((await batchesOf(job.taskId)).current).toMatchObject([{ status: 'pending', attempts: 1 }]);
    // Not due again before its resend time; then two runner passes at once send it once more.
    expect(await runDue(l.t.ctx, waiting)).toBe(0);
    l.t.clock.advance(1_000);
    await Promise.all([runDue(l.t.ctx, waiting), runDue(l.t.ctx, waiting)]);
    expect(sends() - before).toBe(2);
    expect((await batchesOf(job.taskId)).current).toMatchObject([{ status: 'pending', attempts: 2 }]);

    await l.fake.settle();
    await followWallet(l.t.ctx, l.live);
    expect(await confirmed(job.taskId)).toBe(true);
    expect((await batchesOf(job.taskId)).current).toMatchObject([{ id: batch!.id, status: 'landed' }]);
    // A landed batch is no longer outbox work.
    const after = sends();
    expect(await runDue(l.t.ctx, kind())).toBe(0);
    expect(sends()).toBe(after);
    await expectPaidOnce(job);
  });

  it('with no wait between attempts and a clock that has not moved, an instance that listed the batch before another’s attempt does not claim it again', async () => {
    const job = await completed(await fundedAgent());
    expect(await prepareBatch(l.t.ctx, l.live)).toBe(2);
    const [listed] = await listDueBatches(l.t.ctx.db, nowIso(), 10);
    // resendMs 0: the first attempt settles the batch back to the very next_attempt_at listed.
    const eager = kind();
    const before = sends();
    await attemptRow(l.t.ctx, eager, listed!);
    const [after] = (await batchesOf(job.taskId)).current;
    expect(after).toMatchObject({ status: 'pending', attempts: 1, next_attempt_at: listed!.next_attempt_at });
    // The late instance still holds the row as it listed it: its claim must lose.
    await attemptRow(l.t.ctx, eager, listed!);
    expect(sends() - before).toBe(1);
    expect((await batchesOf(job.taskId)).current).toMatchObject([{ status: 'pending', attempts: 1 }]);
  });

  it('a batch whose send failed stays pending and is sent again by the runner; it lands once', async () => {
    const job = await completed(await fundedAgent());
    l.fake.inject('sendBoc', { kind: 'status', status: 503 });
    await runChainSender(l.t.ctx, l.live);
    const [failed] = (await batchesOf(job.taskId)).current;
    expect(failed).toMatchObject({ status: 'pending', attempts: 1 });
    expect(failed!.last_error).toMatch(/send failed: HTTP 503/);
    await l.fake.settle();
    await followWallet(l.t.ctx, l.live);
    expect(await confirmed(job.taskId)).toBe(false);
    expect(await l.fake.balance(Address.parse(job.worker.wallet))).toBe(0n);

    await roundsUntil(l, () => confirmed(job.taskId));
    const { current } = await batchesOf(job.taskId);
    // The same batch (same query id) landed: nothing was re-batched, nothing expired.
    expect(current).toMatchObject([{ id: failed!.id, query_id: failed!.query_id, status: 'landed' }]);
    expect(current[0]!.attempts).toBeGreaterThanOrEqual(2);
    await expectPaidOnce(job);
  });

  it('a claim held by an instance that died keeps the batch from others until its lease passes', async () => {
    const job = await completed(await fundedAgent());
    await prepareBatch(l.t.ctx, l.live);
    const [batch] = (await batchesOf(job.taskId)).current;
    const lease = l.t.clock.now().getTime() + 30_000 + LEASE_MARGIN_MS;
    const won = await claimDue(
      l.t.ctx.db,
      'chain_batches',
      batch!.id,
      { nextAttemptAt: batch!.next_attempt_at, attempts: batch!.attempts },
      {
        leaseUntil: new Date(lease).toISOString(),
        now: nowIso(),
        attempts: 1,
      },
    );
    expect(won).toBe(true);
    const before = sends();
    await runDue(l.t.ctx, kind());
    expect(sends()).toBe(before);
    l.t.clock.set(new Date(lease));
    await roundsUntil(l, () => confirmed(job.taskId));
    expect(sends()).toBeGreaterThan(before);
    expect((await batchesOf(job.taskId)).current).toMatchObject([{ id: batch!.id, status: 'landed' }]);
    await expectPaidOnce(job);
  });

  it('a batch past its time-out is settled expired only after the follower has read past it; its transfers go into a new batch', async () => {
    const job = await completed(await fundedAgent());
    await prepareBatch(l.t.ctx, l.live);
    l.fake.inject('sendBoc', { kind: 'status', status: 503 });
    await runDue(l.t.ctx, kind());
    const [first] = (await batchesOf(job.taskId)).current;
    expect(first).toMatchObject({ status: 'pending', attempts: 1 });

    l.fake.advance(WALLET_TIMEOUT_SEC + 30);
    // Past the time-out, but the follower has not read the wallet past it: nothing is released,
    // and nothing is sent (the wallet would refuse the message now anyway).
    const before = sends();
    await runDue(l.t.ctx, kind());
    let now = await batchesOf(job.taskId);
    expect(now.current).toMatchObject([{ id: first!.id, status: 'pending' }]);
    expect(now.current[0]!.last_error).toMatch(/follower has not read past it/);
    expect(sends()).toBe(before);

    await followWallet(l.t.ctx, l.live);
    await runDue(l.t.ctx, kind());
    const old = await storedBatch(l.t, first!.id);
    expect(old.status).toBe('expired');
    now = await batchesOf(job.taskId);
    expect(now.transfers.every((t) => t.batch_id === null)).toBe(true);

    await roundsUntil(l, () => confirmed(job.taskId));
    const { current } = await batchesOf(job.taskId);
    expect(current).toHaveLength(1);
    expect(current[0]).toMatchObject({ status: 'landed' });
    expect(current[0]!.query_id).not.toBe(first!.query_id);
    await expectPaidOnce(job);
  });
});
