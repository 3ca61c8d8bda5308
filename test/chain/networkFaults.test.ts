import { Address, toNano } from '@ton/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readChainState } from '../../src/db/repositories/chainState.js';
import { PAUSE_KEY, USDT_PAUSE_KEY } from '../../src/domain/chain/chainSender.js';
import { ok } from '../helpers/agentApi.js';
import {
  agentMe,
  assignedTask,
  createAgent,
  expectBooksBalanced,
  type TestAgent,
} from '../helpers/fixtures.js';
import {
  chainRound,
  createLiveTestApp,
  createLiveWorker,
  creditUsdt,
  type LiveTestApp,
  roundsUntil,
  storedBatch,
  usdtBalance,
} from '../helpers/liveChain.js';

const USDT = 1_000_000n;

/**
 * Provider faults against the toncenter-v2 fake. After each, every worker is paid exactly once
 * and every deposit credited exactly once, checked on the chain's balances to the nanoton.
 */
describe('network mode under provider faults', () => {
  let l: LiveTestApp;
  beforeAll(async () => {
    // USDT on: the fault tests pay a USDT task next to the TON ones (jetton payouts in the batches).
    l = await createLiveTestApp({ usdt: true });
  }, 180_000); // a fresh fake chain, app and mnemonic on a busy 2-core machine
  afterAll(() => l.close());
  beforeEach(() => l.fake.clearFaults());

  /** An agent funded by a real wallet transfer with its memo, credited by the follower. */
  async function fundedAgent(amount = '30'): Promise<TestAgent> {
    const agent = await createAgent(l.t);
    await l.fake.sendFromFaucet(l.live.wallet.address, toNano(amount), agent.id);
    await roundsUntil(l, async () => (await agentMe(l.t, agent)).balance === amount);
    return agent;
  }

  async function completeFor(agent: TestAgent, reward = '10', currency: 'TON' | 'USDT' = 'TON') {
    const worker = await createLiveWorker(l.t);
    const { taskId } = await assignedTask(l.t, agent, worker, { reward, currency });
    await ok(l.t, agent, 'POST', `/tasks/${taskId}/complete`);
    return { worker, taskId };
  }

  async function ledgerRows(taskId: string) {
    return l.t.ctx.db.selectFrom('transactions').selectAll().where('task_id', '=', taskId).execute();
  }

  async function allConfirmed(taskIds: string[]) {
    for (const id of taskIds) {
      const rows = (await ledgerRows(id)).filter((r) => r.type === 'PAYOUT' || r.type === 'FEE');
      if (rows.length !== 2 || rows.some((r) => r.status !== 'confirmed')) return false;
    }
    return true;
  }

  /** Each worker's wallet holds exactly its reward (TON, or USDT in its jetton wallet): paid once. */
  async function expectPaidOnce(jobs: { worker: { wallet: string }; taskId: string }[]) {
    for (const job of jobs) {
      const payout = (await ledgerRows(job.taskId)).find((r) => r.type === 'PAYOUT')!;
      const onChain =
        payout.currency === 'USDT'
          ? await usdtBalance(l, job.worker.wallet)
          : await l.fake.balance(Address.parse(job.worker.wallet));
      expect(onChain).toBe(payout.amount_nano);
    }
  }

  /** The fee address's USDT: exactly the confirmed USDT fees, each paid once. */
  async function expectUsdtFeesOnce() {
    const fees = await l.t.ctx.db
      .selectFrom('transactions')
      .select('amount_nano')
      .where('type', '=', 'FEE')
      .where('currency', '=', 'USDT')
      .execute();
    expect(await usdtBalance(l, l.feeAddress)).toBe(fees.reduce((sum, f) => sum + f.amount_nano, 0n));
  }

  it('429s (with Retry-After), 5xx and time-outs on every method', async () => {
    const agent = await fundedAgent();
    await creditUsdt(l, agent.id, 20n * USDT);
    const jobs = [await completeFor(agent), await completeFor(agent), await completeFor(agent, '5', 'USDT')];
    for (const method of ['getAddressInformation', 'sendBoc', 'getTransactions', 'runGetMethod']) {
      l.fake.inject(method, { kind: 'status', status: 429, retryAfterSec: 0 }, 2);
      l.fake.inject(method, { kind: 'status', status: 502 }, 2);
      l.fake.inject(method, { kind: 'status', status: 500 });
    }
    l.fake.inject('getTransactions', { kind: 'hang' });
    await roundsUntil(l, () => allConfirmed(jobs.map((j) => j.taskId)));
    for (let i = 0; i < 3; i++) await chainRound(l);
    await expectPaidOnce(jobs);
    await expectUsdtFeesOnce();
    expect((await agentMe(l.t, agent)).balance).toBe('4'); // 30 deposited, two tasks of 10 + 3 fee
    await expectBooksBalanced(l.t);
  });

  it('a sendBoc that reaches the chain but answers 500 is resent safely and pays once', async () => {
    const agent = await fundedAgent();
    await creditUsdt(l, agent.id, 13n * USDT);
    const jobs = [await completeFor(agent), await completeFor(agent, '10', 'USDT')];
    l.fake.inject('sendBoc', { kind: 'land-then-500' }, 5);
    await roundsUntil(l, () => allConfirmed(jobs.map((j) => j.taskId)));
    for (let i = 0; i < 3; i++) await chainRound(l);
    await expectPaidOnce(jobs);
    await expectUsdtFeesOnce();
    const batches = await l.t.ctx.db
      .selectFrom('chain_batches')
      .selectAll()
      .where('status', '=', 'expired')
      .execute();
    expect(batches).toEqual([]);
  });

  it('a page of transactions served twice credits each deposit once', async () => {
    const agent = await createAgent(l.t);
    await l.fake.sendFromFaucet(l.live.wallet.address, toNano('2'), agent.id);
    await chainRound(l);
    await l.fake.sendFromFaucet(l.live.wallet.address, toNano('3'), agent.id);
    l.fake.inject('getTransactions', { kind: 'repeat-page' }, 3);
    for (let i = 0; i < 6; i++) await chainRound(l);
    expect((await agentMe(l.t, agent)).balance).toBe('5');
    const deposits = await l.t.ctx.db
      .selectFrom('transactions')
      .selectAll()
      .where('agent_id', '=', agent.id)
      .where('type', '=', 'DEPOSIT')
      .execute();
    expect(deposits.map((d) => d.amount_nano).sort()).toEqual([toNano('2'), toNano('3')]);
  });

  it('a provider down for minutes: a message that expired unsent is re-issued under a new query id, once', async () => {
    const agent = await fundedAgent();
    const job = await completeFor(agent);
    // The batch is persisted and its one send fails; then the provider is down for five minutes.
    l.fake.inject('sendBoc', { kind: 'status', status: 503 });
    await chainRound(l);
    const [first] = await l.t.ctx.db
      .selectFrom('chain_batches')
      .innerJoin('chain_transfers', 'chain_transfers.batch_id', 'chain_batches.id')
      .innerJoin('transactions', 'transactions.id', 'chain_transfers.txn_id')
      .where('transactions.task_id', '=', job.taskId)
      .select(['chain_batches.id', 'chain_batches.query_id'])
      .execute();
    expect(first).toBeDefined();
    l.fake.setDown(true);
    for (let i = 0; i < 3; i++) await chainRound(l);
    l.fake.advance(300);
    for (let i = 0; i < 2; i++) await chainRound(l);
    l.fake.setDown(false);
    await roundsUntil(l, () => allConfirmed([job.taskId]));
    const old = await storedBatch(l.t, first!.id);
    expect(old.status).toBe('expired');
    const now = await l.t.ctx.db
      .selectFrom('chain_transfers')
      .innerJoin('chain_batches', 'chain_batches.id', 'chain_transfers.batch_id')
      .innerJoin('transactions', 'transactions.id', 'chain_transfers.txn_id')
      .where('transactions.task_id', '=', job.taskId)
      .select(['chain_batches.query_id', 'chain_batches.status'])
      .execute();
    expect(now.every((b) => b.status === 'landed' && b.query_id !== first!.query_id)).toBe(true);
    await expectPaidOnce([job]);
  });

  it('an empty hot wallet pauses payouts with an operator-visible reason instead of burning retries', async () => {
    const agent = await fundedAgent('20');
    // The operator moves the hot wallet's money away (here: the chain balance is set low).
    const account = await l.fake.blockchain.getContract(l.live.wallet.address);
    const kept = account.balance;
    account.balance = toNano('0.05');
    await creditUsdt(l, agent.id, 2n * USDT);
    const job = await completeFor(agent);
    // A USDT payout waits too: the USDT is there, the TON for its gas is not.
    const usdtJob = await completeFor(agent, '1', 'USDT');
    for (let i = 0; i < 3; i++) await chainRound(l);
    expect(await readChainState(l.t.ctx.db, PAUSE_KEY)).toMatch(/cannot pay the next transfer/);
    expect(await readChainState(l.t.ctx.db, USDT_PAUSE_KEY)).toMatch(
      /cannot pay the TON for gas .* with TON/,
    );
    expect(
      await l.t.ctx.db
        .selectFrom('chain_transfers')
        .select('txn_id')
        .where('batch_id', 'is', null)
        .where('status', '=', 'pending')
        .execute(),
    ).toHaveLength(4);
    account.balance = kept;
    await roundsUntil(l, () => allConfirmed([job.taskId, usdtJob.taskId]));
    expect(await readChainState(l.t.ctx.db, PAUSE_KEY)).toBeNull();
    expect(await readChainState(l.t.ctx.db, USDT_PAUSE_KEY)).toBeNull();
    await expectPaidOnce([job, usdtJob]);
    await expectUsdtFeesOnce();
  });
});
