import { randomBytes } from 'node:crypto';
import { Address, toNano } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jettonPayoutMessage } from '../../src/chain/jetton/payout.js';
import { readChainState } from '../../src/db/repositories/chainState.js';
import { listTaskEvents } from '../../src/db/repositories/events.js';
import { PAUSE_KEY, prepareBatch, USDT_PAUSE_KEY } from '../../src/domain/chain/chainSender.js';
import { ok } from '../helpers/agentApi.js';
import { agentMe, assignedTask, createAgent, expectBooksBalanced } from '../helpers/fixtures.js';
import {
  chainRound,
  createLiveTestApp,
  createLiveWorker,
  creditUsdt,
  type LiveTestApp,
  roundsUntil,
  usdtBalance,
} from '../helpers/liveChain.js';

const USDT = 1_000_000n;

/**
 * Network mode (TON_NETWORK=testnet against the toncenter fake) with USDT: jetton payouts in the
 * Highload batches, confirmed from the jetton wallets, paused per currency, and a jetton transfer
 * that fails after its batch landed sent again, all checked on the chain's jetton balances.
 */
describe('USDT payouts in network mode', () => {
  let l: LiveTestApp;
  beforeAll(async () => {
    l = await createLiveTestApp({ usdt: true });
  }, 180_000);
  afterAll(() => l.close());

  async function ledger(taskId: string) {
    const rows = await l.t.ctx.db
      .selectFrom('transactions')
      .selectAll()
      .where('task_id', '=', taskId)
      .execute();
    return { payout: rows.find((r) => r.type === 'PAYOUT')!, fee: rows.find((r) => r.type === 'FEE')! };
  }
  async function confirmed(taskId: string) {
    const { payout, fee } = await ledger(taskId);
    return payout.status === 'confirmed' && fee.status === 'confirmed';
  }
  async function completedTask(
    agent: Awaited<ReturnType<typeof createAgent>>,
    body: Record<string, unknown>,
  ) {
    const worker = await createLiveWorker(l.t);
    const { taskId } = await assignedTask(l.t, agent, worker, body);
    await ok(l.t, agent, 'POST', `/tasks/${taskId}/complete`);
    return { worker, taskId };
  }
  const chainStatus = async () =>
    (await l.t.app.inject({ method: 'GET', url: '/admin/chain', headers: l.t.admin })).json();

  it('pays reward and fee once; a USDT shortage pauses USDT only; funded, it pays', async () => {
    const { t, fake, live } = l;
    const agent = await createAgent(t);
    await fake.sendFromFaucet(live.wallet.address, toNano('20'), agent.id);
    await roundsUntil(l, async () => (await agentMe(t, agent)).balance === '20');
    // The agent's 30 USDT are booked, but the hot wallet holds only 5 of them (the operator moved
    // the rest away): the 10 + 3 USDT payout cannot go, the TON one can.
    await creditUsdt(l, agent.id, 30n * USDT);
    const hotJetton = Address.parse(
      await t.services.chain.jetton!.walletAddress(live.wallet.address.toString()),
    );
    await moveHotUsdt(25n * USDT, new Address(0, randomBytes(32)));
    expect(await usdtBalance(l, live.wallet.address)).toBe(5n * USDT);

    const usdtJob = await completedTask(agent, { reward: '10', currency: 'USDT' });
    const tonJob = await completedTask(agent, { reward: '5' });
    await roundsUntil(l, () => confirmed(tonJob.taskId));
    expect(await readChainState(t.ctx.db, PAUSE_KEY)).toBeNull();
    const paused = await readChainState(t.ctx.db, USDT_PAUSE_KEY);
    expect(paused).toMatch(
      /USDT balance 5000000 micro-USDT .* cannot pay the next USDT transfer of 10000000/,
    );
    const status = await chainStatus();
    expect(status.payoutsPaused).toBeNull();
    expect(status.usdt).toMatchObject({ hotBalance: '5000000', payoutsPaused: paused });
    expect(BigInt(status.usdt.tonLeftForGasNano)).toBeGreaterThan(toNano('900'));
    expect(await confirmed(usdtJob.taskId)).toBe(false);
    expect(
      await t.ctx.db
        .selectFrom('chain_transfers')
        .select('txn_id')
        .where('currency', '=', 'USDT')
        .where('batch_id', 'is not', null)
        .execute(),
    ).toEqual([]);

    // Funded, it pays: the reward to the worker and the fee to the fee address, as jettons.
    await fake.mintJetton(l.usdtMaster!, live.wallet.address, 20n * USDT);
    await roundsUntil(l, () => confirmed(usdtJob.taskId));
    for (let i = 0; i < 3; i++) await chainRound(l); // more rounds send nothing twice
    expect(await readChainState(t.ctx.db, USDT_PAUSE_KEY)).toBeNull();
    expect(await usdtBalance(l, usdtJob.worker.wallet)).toBe(10n * USDT);
    expect(await usdtBalance(l, l.feeAddress)).toBe(3n * USDT);
    expect(await usdtBalance(l, live.wallet.address)).toBe(12n * USDT);
    expect(await fake.balance(Address.parse(tonJob.worker.wallet))).toBe(toNano('5'));
    // The ledger rows carry the hot jetton wallet's transactions; payment.sent is in USDT.
    const { payout, fee } = await ledger(usdtJob.taskId);
    expect(payout).toMatchObject({ currency: 'USDT', amount_nano: 10n * USDT });
    expect(payout.tx_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(fee.tx_hash).not.toBe(payout.tx_hash);
    const sentTx = fake.history(hotJetton).find((tx) => tx.hash().toString('hex') === payout.tx_hash);
    expect(sentTx).toBeDefined();
    const sent = (await listTaskEvents(t.ctx.db, usdtJob.taskId)).filter((e) => e.type === 'payment.sent');
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0]!.data_json).payment).toMatchObject({
      amount: '10',
      currency: 'USDT',
      txHash: payout.tx_hash,
    });
    expect((await chainStatus()).usdt).toMatchObject({ hotBalance: '12000000', payoutsPaused: null });
    await expectBooksBalanced(t);
  });

  it('a jetton transfer that fails after its batch landed (hot USDT drained) is sent again and paid once', async () => {
    const { t, live } = l;
    const agent = await createAgent(t);
    const have = await usdtBalance(l, live.wallet.address);
    await creditUsdt(l, agent.id, 13n * USDT);
    const job = await completedTask(agent, { reward: '10', currency: 'USDT' });
    // The batch is persisted; before it lands the operator moves all the hot USDT away.
    expect(await prepareBatch(t.ctx, live)).toBe(2);
    await moveHotUsdt(have + 13n * USDT, new Address(0, randomBytes(32)));
    for (let i = 0; i < 3; i++) await chainRound(l);
    // It landed, the hot jetton wallet refused both (no balance): back to be batched, nothing paid.
    expect(await usdtBalance(l, job.worker.wallet)).toBe(0n);
    expect(await confirmed(job.taskId)).toBe(false);
    const rows = await t.ctx.db
      .selectFrom('chain_transfers')
      .selectAll()
      .where('currency', '=', 'USDT')
      .where('status', '=', 'pending')
      .execute();
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).toMatchObject({ batch_id: null, sent_lt: null, attempts: 1 });
      expect(row.last_error).toMatch(/failed \(1 times\).*insufficient jetton balance/);
    }
    // They wait out the back-off (nothing is batched meanwhile), then the sender finds no USDT.
    for (let i = 0; i < 2; i++) await chainRound(l);
    expect(
      await t.ctx.db.selectFrom('chain_batches').where('status', '=', 'pending').selectAll().execute(),
    ).toEqual([]);
    t.clock.advance(30_000);
    await chainRound(l);
    expect(await readChainState(t.ctx.db, USDT_PAUSE_KEY)).toMatch(/send USDT to/);
    await l.fake.mintJetton(l.usdtMaster!, live.wallet.address, 13n * USDT);
    await roundsUntil(l, () => confirmed(job.taskId));
    for (let i = 0; i < 3; i++) await chainRound(l);
    expect(await usdtBalance(l, job.worker.wallet)).toBe(10n * USDT);
    expect(await usdtBalance(l, l.feeAddress)).toBe(6n * USDT);
    expect(await usdtBalance(l, live.wallet.address)).toBe(0n);
    await expectBooksBalanced(t);
  });

  it('an instance killed between sending a USDT batch and recording it: another pays it once', async () => {
    const { t, fake, live } = l;
    const agent = await createAgent(t);
    await creditUsdt(l, agent.id, 13n * USDT);
    const job = await completedTask(agent, { reward: '10', currency: 'USDT' });
    const hotBefore = await usdtBalance(l, live.wallet.address);
    const feeBefore = await usdtBalance(l, l.feeAddress);
    // Instance B persists the batch, claims it, sends it, and dies before recording anything
    // (as kill -9 at HANDOFF_FAIL_AT=after-send): its claim holds the batch for ATTEMPT_TIMEOUT_MS.
    const b = await createLiveTestApp({ sharedWith: l, usdt: true });
    b.t.clock.set(t.clock.now()); // the two instances' clocks agree
    expect(await prepareBatch(b.t.ctx, b.live)).toBe(2);
    const batch = await t.ctx.db
      .selectFrom('chain_batches')
      .selectAll()
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow();
    const leaseUntil = new Date(b.t.clock.now().getTime() + 30_000).toISOString();
    await t.ctx.db
      .updateTable('chain_batches')
      .set({ attempts: 1, next_attempt_at: leaseUntil })
      .where('id', '=', batch.id)
      .execute();
    await b.live.client.sendBoc(batch.boc);
    await b.close();
    await fake.settle();
    // This instance goes on: the follower sees the batch land, the jetton wallets show both paid.
    await roundsUntil(l, () => confirmed(job.taskId));
    // The dead instance's claim runs out: nothing is sent again (the batch has landed).
    t.clock.advance(60_000);
    for (let i = 0; i < 3; i++) await chainRound(l);
    expect(await usdtBalance(l, job.worker.wallet)).toBe(10n * USDT);
    expect(await usdtBalance(l, l.feeAddress)).toBe(feeBefore + 3n * USDT);
    expect(await usdtBalance(l, live.wallet.address)).toBe(hotBefore - 13n * USDT);
    expect(
      await t.ctx.db
        .selectFrom('chain_batches')
        .select('status')
        .where('id', '=', batch.id)
        .executeTakeFirst(),
    ).toEqual({ status: 'landed' });
    await expectBooksBalanced(t);
  });

  /**
   * The operator moves hot USDT away by hand: a batch of its own (a sequence number the service
   * never uses), so the service's books know nothing of it.
   */
  let handSeq = 5_000_000;
  async function moveHotUsdt(amount: bigint, to: Address) {
    const { live, fake, t } = l;
    handSeq += 1;
    const batch = live.wallet.signBatch({
      seq: handSeq,
      createdAt: fake.nowSeconds() - 2,
      withInit: (await fake.blockchain.getContract(live.wallet.address)).accountState?.type !== 'active',
      transfers: [
        jettonPayoutMessage({
          transferId: `by-hand-${handSeq}`,
          hotJettonWallet: Address.parse(
            await t.services.chain.jetton!.walletAddress(live.wallet.address.toString()),
          ),
          hotWallet: live.wallet.address,
          toOwner: to,
          amount,
          comment: 'moved by the operator',
        }),
      ],
    });
    await live.client.sendBoc(batch.boc);
    await fake.settle();
  }
});
