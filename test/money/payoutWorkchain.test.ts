import { randomBytes } from 'node:crypto';
import { Address } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatAddress } from '../../src/chain/address.js';
import { MAX_TRANSFER_FAILURES } from '../../src/domain/money/failedTransfers.js';
import { sendDueJettonTransfers } from '../../src/domain/money/jettonTransfers.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, createWorker, expectBooksBalanced, newWalletAddress } from '../helpers/fixtures.js';
import { submittedTask } from '../helpers/submissionApi.js';
import { call } from '../helpers/workerApi.js';

/**
 * Issue 35, finding 2: a masterchain (-1) wallet is refused as a payout wallet, and a USDT payout
 * to one (a wallet stored before the rule) fails on chain ("wrong workchain"): it is tried
 * MAX_TRANSFER_FAILURES times, then failed, shown to the operator, the worker told, and still
 * owed; connecting a regular wallet sends it again.
 */
const masterchainWallet = (network: 'sandbox' = 'sandbox') =>
  formatAddress(new Address(-1, randomBytes(32)), network);

async function transferOf(t: TestApp, txnId: string) {
  return t.ctx.db
    .selectFrom('chain_transfers')
    .innerJoin('transactions', 'transactions.id', 'chain_transfers.txn_id')
    .select([
      'chain_transfers.status as transferStatus',
      'chain_transfers.attempts',
      'chain_transfers.to_address',
      'transactions.status',
    ])
    .where('chain_transfers.txn_id', '=', txnId)
    .executeTakeFirstOrThrow();
}

describe('payout wallets live in workchain 0', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('refuses a workchain -1 wallet with a 400 that says why, in raw and user-friendly form', async () => {
    const worker = await createWorker(t);
    const raw = `-1:${randomBytes(32).toString('hex')}`;
    for (const address of [raw, masterchainWallet()]) {
      const res = await call(t, 'PUT', '/worker/me/wallet', worker.headers, { address });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.body).toMatch(/workchain -1; payouts go to workchain 0 wallets only/);
    }
    const me = (await call(t, 'GET', '/worker/me', worker.headers)).json().worker;
    expect(me.walletAddress).toBe(worker.wallet);
  });

  it('a USDT payout that keeps failing stops after N attempts: failed, shown, told, still owed; a new wallet sends it', async () => {
    const jetton = t.services.chain.jetton!;
    const agent = await createAgent(t, { deposit: '1' });
    const credit = await call(t, 'POST', `/admin/agents/${agent.id}/deposits`, t.admin, {
      amount: '5',
      currency: 'USDT',
    });
    expect(credit.statusCode, credit.body).toBe(201);
    const worker = await createWorker(t);
    const { taskId } = await submittedTask(t, agent, worker, { currency: 'USDT', reward: '1' });
    // A wallet stored before the rule (the sandbox took a bare -1 address then).
    const bad = masterchainWallet();
    await t.ctx.db.updateTable('workers').set({ wallet_address: bad }).where('id', '=', worker.id).execute();

    const done = await call(t, 'POST', `/tasks/${taskId}/complete`, agent.headers);
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().payment).toMatchObject({ amount: '1', currency: 'USDT', pending: true });
    const ledger = (await call(t, 'GET', '/transactions?limit=100', agent.headers)).json().transactions;
    const payout = ledger.find((r: { type: string }) => r.type === 'PAYOUT');
    expect(await transferOf(t, payout.id)).toMatchObject({ transferStatus: 'pending', attempts: 1 });

    // Each retry is due after its back-off; the runner stops after MAX_TRANSFER_FAILURES.
    for (let i = 0; i < MAX_TRANSFER_FAILURES + 3; i++) {
      t.clock.advance(11 * 60_000);
      await sendDueJettonTransfers(t.ctx);
    }
    const failed = await transferOf(t, payout.id);
    expect(failed).toMatchObject({
      transferStatus: 'failed',
      attempts: MAX_TRANSFER_FAILURES,
      status: 'pending',
      to_address: bad,
    });
    expect(await jetton.balance(bad)).toBe(0n);

    // The operator sees it, on the overview and the chain view.
    const overview = (await call(t, 'GET', '/admin/overview', t.admin)).json();
    expect(overview.transfers.failed).toBeGreaterThanOrEqual(1);
    expect(overview.openTransfers).toContainEqual(
      expect.objectContaining({ id: payout.id, status: 'failed', attempts: MAX_TRANSFER_FAILURES }),
    );
    const chain = (await call(t, 'GET', '/admin/chain', t.admin)).json();
    expect(chain.transfers.failed).toBe(1);

    // The worker is told, once.
    const told = await t.ctx.db
      .selectFrom('notifications')
      .selectAll()
      .where('worker_id', '=', worker.id)
      .where('kind', '=', 'payment_failed')
      .execute();
    expect(told).toHaveLength(1);
    expect(JSON.parse(told[0]!.data_json)).toMatchObject({
      taskId,
      amount: '1',
      currency: 'USDT',
      toAddress: bad,
    });

    // Still owed: the books balance with the payout pending; the worker's earnings show it.
    await expectBooksBalanced(t);
    const earnings = await call(t, 'GET', '/worker/earnings', worker.headers);
    expect(earnings.statusCode, earnings.body).toBe(200);

    // A regular wallet puts it back to pending, to that wallet, and it is paid.
    const good = newWalletAddress();
    const set = await call(t, 'PUT', '/worker/me/wallet', worker.headers, { address: good });
    expect(set.statusCode, set.body).toBe(200);
    expect(await transferOf(t, payout.id)).toMatchObject({
      transferStatus: 'pending',
      attempts: 0,
      to_address: good,
    });
    await sendDueJettonTransfers(t.ctx);
    expect(await transferOf(t, payout.id)).toMatchObject({ transferStatus: 'sent', status: 'confirmed' });
    expect(await jetton.balance(good)).toBe(1_000_000n);
    await expectBooksBalanced(t);
  });
});
