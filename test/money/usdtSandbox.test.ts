import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DelegatingGateway } from '../../src/chain/delegatingGateway.js';
import type { ChainGateway } from '../../src/chain/gateway.js';
import type { JettonGateway, JettonTransferRequest } from '../../src/chain/jetton/gateway.js';
import { sendDueJettonTransfers } from '../../src/domain/money/jettonTransfers.js';
import { sendDueTransfers } from '../../src/domain/money/payouts.js';
import { dispatchDueDeliveries } from '../../src/outbox/webhookDeliveries.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, createWorker, expectBooksBalanced, type TestAgent } from '../helpers/fixtures.js';
import { expectAgentBooks } from '../helpers/moneyChecks.js';
import { Receiver } from '../helpers/receiver.js';
import { submittedTask } from '../helpers/submissionApi.js';
import { call, taskEvents, workerMe } from '../helpers/workerApi.js';

/**
 * Issue 29 in the sandbox: USDT moves on the sandbox chain ("USDT (sandbox)", a real TEP-74
 * jetton), not only in the books. The faucet's USDT arrives at the deposit address's jetton
 * wallet; approving a USDT task pays the reward and the fee as jetton transfers at once, each
 * exactly once however often it is attempted and across a restart between send and record.
 */

const HASH = /^[0-9a-f]{64}$/;

/** A chain transfer row and its ledger row, by the ledger row's id. */
async function transferOf(t: TestApp, txnId: string) {
  return t.ctx.db
    .selectFrom('chain_transfers')
    .innerJoin('transactions', 'transactions.id', 'chain_transfers.txn_id')
    .select([
      'chain_transfers.status as transferStatus',
      'chain_transfers.attempts',
      'chain_transfers.currency',
      'transactions.status',
      'transactions.tx_hash',
    ])
    .where('chain_transfers.txn_id', '=', txnId)
    .executeTakeFirstOrThrow();
}

async function usdtDeposit(t: TestApp, agent: TestAgent, amount: string) {
  const res = await call(t, 'POST', `/admin/agents/${agent.id}/deposits`, t.admin, {
    amount,
    currency: 'USDT',
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().transaction;
}

describe('USDT in the sandbox moves on the chain', () => {
  let t: TestApp;
  let receiver: Receiver;
  beforeAll(async () => {
    t = await createTestApp();
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('faucet USDT -> USDT task -> apply/accept -> submit -> approve pays worker and fee in jettons, once', async () => {
    const jetton = t.services.chain.jetton!;
    // The one switch: USDT is on because the sandbox gateway has its jetton, and its master is the app's.
    expect(t.ctx.usdt).toMatchObject({ enabled: true, master: jetton.masterAddress });
    const { depositAddress, feeAddress } = t.services.chain;
    const depositBefore = await jetton.balance(depositAddress);
    const feeBefore = await jetton.balance(feeAddress);

    const agent = await createAgent(t, { deposit: '1' });
    const hook = await call(t, 'PATCH', '/agents/webhooks', agent.headers, { url: receiver.url });
    expect(hook.statusCode, hook.body).toBe(200);
    const credit = await usdtDeposit(t, agent, '5.5');
    expect(credit).toMatchObject({ type: 'DEPOSIT', amount: '5.5', currency: 'USDT', status: 'confirmed' });
    expect(credit.txHash).toMatch(HASH);
    // The faucet's USDT really arrived at the deposit address's jetton wallet.
    expect((await jetton.balance(depositAddress)) - depositBefore).toBe(5_500_000n);
    const info = (await call(t, 'GET', '/agents/me/deposit?currency=USDT', agent.headers)).json();
    expect(info).toMatchObject({ jettonMaster: jetton.masterAddress, address: depositAddress });

    const worker = await createWorker(t);
    const { taskId } = await submittedTask(t, agent, worker, { currency: 'USDT', reward: '2.000001' });
    const me = (await call(t, 'GET', '/agents/me', agent.headers)).json().agent;
    expect(me.balances).toEqual({
      TON: { balance: '1', lockedByTasks: '0', lowBalanceThreshold: null },
      USDT: { balance: '2.899999', lockedByTasks: '2.600001', lowBalanceThreshold: null },
    });

    const done = await call(t, 'POST', `/tasks/${taskId}/complete`, agent.headers);
    expect(done.statusCode, done.body).toBe(200);
    // Paid at once, as a TON task is: both jetton transfers confirmed with the chain's hash.
    expect(done.json().payment).toMatchObject({ amount: '2.000001', currency: 'USDT', pending: false });
    expect(done.json().payment.txHash).toMatch(HASH);
    expect(done.json().fee).toMatchObject({ amount: '0.6', currency: 'USDT', success: true });
    expect(await jetton.balance(worker.wallet!)).toBe(2_000_001n);
    expect((await jetton.balance(feeAddress)) - feeBefore).toBe(600_000n);

    const ledger = (await call(t, 'GET', `/transactions?limit=100`, agent.headers)).json().transactions;
    const payout = ledger.find((r: { type: string }) => r.type === 'PAYOUT');
    const fee = ledger.find((r: { type: string }) => r.type === 'FEE');
    for (const row of [payout, fee]) {
      expect(row).toMatchObject({ currency: 'USDT', status: 'confirmed' });
      expect(row.txHash).toMatch(HASH);
      expect(await transferOf(t, row.id)).toMatchObject({
        transferStatus: 'sent',
        attempts: 1,
        currency: 'USDT',
        status: 'confirmed',
        tx_hash: row.txHash,
      });
    }
    expect(payout.txHash).not.toBe(fee.txHash);
    const sent = (await taskEvents(t, taskId)).filter((e) => e.type === 'payment.sent');
    expect(sent).toEqual([
      expect.objectContaining({
        data: {
          taskId,
          payment: { amount: '2.000001', toAddress: worker.wallet, txHash: payout.txHash, currency: 'USDT' },
        },
      }),
    ]);
    // The agent's server hears of both in USDT, with the chain's hashes.
    while ((await dispatchDueDeliveries(t.ctx, t.ctx.webhooks)) > 0);
    expect(receiver.ofEvent('deposit.received').map((w) => w.data.deposit)).toEqual([
      expect.objectContaining({ amount: '5.5', currency: 'USDT', txHash: credit.txHash }),
    ]);
    expect(receiver.ofEvent('payment.sent').map((w) => w.data.payment)).toEqual([
      { amount: '2.000001', toAddress: worker.wallet, txHash: payout.txHash, currency: 'USDT' },
    ]);
    expect((await call(t, 'GET', '/agents/me', agent.headers)).json().agent.balances).toEqual({
      TON: { balance: '1', lockedByTasks: '0', lowBalanceThreshold: null },
      USDT: { balance: '2.899999', lockedByTasks: '0', lowBalanceThreshold: null },
    });
    expect((await workerMe(t, worker.headers)).earnings).toEqual({ TON: '0', USDT: '2.000001' });

    // A second attempt of the same rows (both senders, and the jetton gateway itself) pays nothing.
    t.clock.advance(60_000);
    expect(await sendDueJettonTransfers(t.ctx)).toBe(0);
    expect(await sendDueTransfers(t.ctx)).toBe(0);
    const again = await jetton.transfer({
      transferId: payout.id,
      toAddress: worker.wallet!,
      amount: 2_000_001n,
      comment: 'again',
    });
    expect(again.txHash).toBe(payout.txHash);
    expect(await jetton.balance(worker.wallet!)).toBe(2_000_001n);
    await expectAgentBooks(t, agent);
    await expectBooksBalanced(t);
  });
});

/** The sandbox jetton pays for real and then throws: a process that died before recording it. */
class LostJettonAnswer extends DelegatingGateway {
  lose = true;
  private wrapped: JettonGateway | undefined;

  override get jetton(): JettonGateway | undefined {
    const inner = this.inner.jetton;
    if (!inner) return undefined;
    this.wrapped ??= Object.assign(Object.create(inner) as JettonGateway, {
      transfer: async (req: JettonTransferRequest) => {
        const result = await inner.transfer(req);
        if (this.lose) throw new Error('injected fault: died after the jetton transfer was sent');
        return result;
      },
    });
    return this.wrapped;
  }
}

describe('a restart between send and record', () => {
  it('records the jetton payout the chain already made, and pays nothing twice', async () => {
    let faulty: LostJettonAnswer | undefined;
    const first = await createTestApp({
      wrapChain: (chain: ChainGateway) => {
        faulty = new LostJettonAnswer(chain);
        return faulty;
      },
    });
    let second: TestApp | undefined;
    try {
      const jetton = first.services.chain.jetton!;
      const agent = await createAgent(first);
      await usdtDeposit(first, agent, '3');
      const worker = await createWorker(first);
      const { taskId } = await submittedTask(first, agent, worker, { currency: 'USDT', reward: '1' });
      const done = await call(first, 'POST', `/tasks/${taskId}/complete`, agent.headers);
      expect(done.statusCode, done.body).toBe(200);
      // Sent, but the answer was lost: the books still say pending, the chain says paid.
      expect(done.json().payment).toMatchObject({ currency: 'USDT', pending: true, txHash: null });
      expect(await jetton.balance(worker.wallet!)).toBe(1_000_000n);
      const payoutId = (await call(first, 'GET', '/transactions?type=PAYOUT', agent.headers)).json()
        .transactions[0].id;
      expect(await transferOf(first, payoutId)).toMatchObject({ transferStatus: 'pending', attempts: 1 });
      expect(faulty?.lose).toBe(true);
      await first.close({ keepData: true });

      second = await createTestApp({ reopen: first });
      second.clock.advance(60_000);
      // The background pass of the restarted service: both rows are due again, neither pays again.
      expect(await sendDueJettonTransfers(second.ctx)).toBe(2);
      const row = await transferOf(second, payoutId);
      expect(row).toMatchObject({ transferStatus: 'sent', attempts: 2, status: 'confirmed' });
      expect(row.tx_hash).toMatch(HASH);
      const chainJetton = second.services.chain.jetton!;
      expect(await chainJetton.balance(worker.wallet!)).toBe(1_000_000n);
      expect((await chainJetton.findTransfer(payoutId))?.txHash).toBe(row.tx_hash);
      expect((await taskEvents(second, taskId)).filter((e) => e.type === 'payment.sent')).toHaveLength(1);
      expect(await sendDueJettonTransfers(second.ctx)).toBe(0);
      await expectAgentBooks(second, agent);
      await expectBooksBalanced(second);
    } finally {
      if (second) await second.close();
      else await first.close();
    }
  });
});
