import { Address, toNano } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findLedgerRow } from '../../src/db/repositories/ledger.js';
import { ok } from '../helpers/agentApi.js';
import { agentMe, assignedTask, createAgent, expectBooksBalanced } from '../helpers/fixtures.js';
import {
  chainRound,
  createLiveTestApp,
  createLiveWorker,
  type LiveTestApp,
  roundsUntil,
} from '../helpers/liveChain.js';

describe('TON_NETWORK=testnet against a toncenter-v2 fake: the whole money flow on chain', () => {
  let l: LiveTestApp;
  beforeAll(async () => {
    l = await createLiveTestApp();
  }, 180_000); // a fresh fake chain, app and mnemonic on a busy 2-core machine
  afterAll(() => l.close());

  it('deposit by wallet transfer with the memo, task, completion, payout and fee on chain', async () => {
    const { t, fake, live } = l;
    const agent = await createAgent(t);
    const how = await ok(t, agent, 'GET', '/agents/me/deposit');
    expect(how).toEqual({
      network: 'testnet',
      address: t.services.chain.depositAddress,
      memo: agent.id,
      link: `ton://transfer/${t.services.chain.depositAddress}?text=${agent.id}`,
      minimum: '0.01',
      currency: 'TON',
    });
    await fake.sendFromFaucet(Address.parse(how.address), toNano('50'), how.memo);
    await roundsUntil(l, async () => (await agentMe(t, agent)).balance === '50');
    const events = await t.ctx.db
      .selectFrom('events')
      .selectAll()
      .where('agent_id', '=', agent.id)
      .where('type', '=', 'deposit.received')
      .execute();
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]!.data_json).deposit).toMatchObject({ amount: '50', currency: 'TON' });
    // The operator API cannot fake a deposit off the sandbox.
    const refused = await t.app.inject({
      method: 'POST',
      url: `/admin/agents/${agent.id}/deposits`,
      headers: t.admin,
      payload: { amount: '5' },
    });
    expect(refused.statusCode).toBe(409);

    const worker = await createLiveWorker(t);
    const { taskId } = await assignedTask(t, agent, worker, { reward: '10' });
    const done = await ok(t, agent, 'POST', `/tasks/${taskId}/complete`);
    expect(done.payment).toMatchObject({ txHash: null, pending: true, status: 'pending' });

    const payoutId = (
      await t.ctx.db
        .selectFrom('transactions')
        .select('id')
        .where('task_id', '=', taskId)
        .where('type', '=', 'PAYOUT')
        .executeTakeFirstOrThrow()
    ).id;
    await roundsUntil(l, async () => (await findLedgerRow(t.ctx.db, payoutId))?.status === 'confirmed');
    const payout = await findLedgerRow(t.ctx.db, payoutId);
    const fee = await t.ctx.db
      .selectFrom('transactions')
      .selectAll()
      .where('task_id', '=', taskId)
      .where('type', '=', 'FEE')
      .executeTakeFirstOrThrow();
    expect(fee.status).toBe('confirmed');
    expect(payout?.tx_hash).toMatch(/^[0-9a-f]{64}$/);

    // The chain shows exactly the reward at the worker's wallet and the fee at the fee address.
    expect(await fake.balance(Address.parse(worker.wallet!))).toBe(toNano('10'));
    expect(await fake.balance(l.feeAddress)).toBe(fee.amount_nano);
    // A few more rounds change nothing: nothing is ever sent twice.
    for (let i = 0; i < 3; i++) await chainRound(l);
    expect(await fake.balance(Address.parse(worker.wallet!))).toBe(toNano('10'));
    await expectBooksBalanced(t);

    const reconciliation = await t.app.inject({
      method: 'GET',
      url: '/admin/reconciliation',
      headers: t.admin,
    });
    expect(reconciliation.statusCode, reconciliation.body).toBe(200);
    expect(reconciliation.json()).toMatchObject({ ok: true, differences: [], checkedRows: 3 });

    const status = (await t.app.inject({ method: 'GET', url: '/admin/chain', headers: t.admin })).json();
    expect(status).toMatchObject({
      network: 'testnet',
      hotWallet: { address: t.services.chain.hotWalletAddress, balanceError: null },
      transfers: { pending: 0, sent: 0, confirmed: 2 },
      payoutsPaused: null,
    });
    expect(BigInt(status.hotWallet.balanceNano)).toBe(await fake.balance(live.wallet.address));
    expect(status.watcher.cursor.lt).toMatch(/^\d+$/);
  });

  it('a deposit with an unknown memo waits for the operator, who assigns it once', async () => {
    const { t, fake, live } = l;
    const agent = await createAgent(t);
    await fake.sendFromFaucet(live.wallet.address, toNano('4'), 'no such agent');
    await fake.sendFromFaucet(live.wallet.address, toNano('0.001'), agent.id);
    for (let i = 0; i < 3; i++) await chainRound(l);
    const list = await t.app.inject({ method: 'GET', url: '/admin/deposits/unmatched', headers: t.admin });
    const deposits = list.json().deposits as {
      txHash: string;
      memo: string;
      amount: string;
      reason: string;
    }[];
    const unknown = deposits.find((d) => d.memo === 'no such agent')!;
    expect(unknown).toMatchObject({ amount: '4', reason: 'unknown_memo' });
    expect(deposits.find((d) => d.memo === agent.id)).toMatchObject({
      amount: '0.001',
      reason: 'below_minimum',
    });
    expect((await agentMe(t, agent)).balance).toBe('0');

    const url = `/admin/deposits/unmatched/${unknown.txHash}/assign`;
    const first = await t.app.inject({
      method: 'POST',
      url,
      headers: t.admin,
      payload: { agentId: agent.id },
    });
    expect(first.statusCode, first.body).toBe(201);
    const again = await t.app.inject({
      method: 'POST',
      url,
      headers: t.admin,
      payload: { agentId: agent.id },
    });
    // A replay for the same agent answers the same credit; the balance shows it once.
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json().transaction.id).toBe(first.json().transaction.id);
    expect((await agentMe(t, agent)).balance).toBe('4');
    const reconciliation = await t.app.inject({
      method: 'GET',
      url: '/admin/reconciliation',
      headers: t.admin,
    });
    expect(reconciliation.json()).toMatchObject({ ok: true, differences: [] });
  });

  it('reconciliation reports a ledger row that differs from the chain', async () => {
    const { t } = l;
    const row = await t.ctx.db
      .selectFrom('transactions')
      .selectAll()
      .where('type', '=', 'PAYOUT')
      .where('status', '=', 'confirmed')
      .executeTakeFirstOrThrow();
    await t.ctx.db
      .updateTable('transactions')
      .set({ amount_nano: row.amount_nano + 1n })
      .where('id', '=', row.id)
      .execute();
    try {
      const res = await t.app.inject({ method: 'GET', url: '/admin/reconciliation', headers: t.admin });
      expect(res.json()).toMatchObject({
        ok: false,
        differences: [{ kind: 'amount', ledgerId: row.id, txHash: row.tx_hash }],
      });
    } finally {
      await t.ctx.db
        .updateTable('transactions')
        .set({ amount_nano: row.amount_nano })
        .where('id', '=', row.id)
        .execute();
    }
  });
});
