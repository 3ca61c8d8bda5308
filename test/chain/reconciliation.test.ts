import { randomBytes } from 'node:crypto';
import { toNano } from '@ton/core';
import { keyPairFromSeed } from '@ton/crypto';
import { WalletContractV4 } from '@ton/ton';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditChainDeposit } from '../../src/domain/agents/agents.js';
import { ok } from '../helpers/agentApi.js';
import { agentMe, assignedTask, createAgent, type TestAgent } from '../helpers/fixtures.js';
import {
  chainRound,
  createLiveTestApp,
  createLiveWorker,
  type LiveTestApp,
  roundsUntil,
} from '../helpers/liveChain.js';

interface Difference {
  kind: string;
  ledgerId: string | null;
  txHash: string | null;
  detail: string;
}

/**
 * GET /admin/reconciliation (and `npm run cli -- reconcile`, which prints it) against the
 * toncenter fake: every incoming transfer the watcher has processed is booked exactly once (one
 * DEPOSIT row or one unmatched deposit, never both, never neither), every transfer out of the hot
 * wallet is a ledger row of ours whatever its comment, and pending rows older than the stated
 * bound are listed. Each discrepancy is planted the way it would arise and must be reported.
 */
describe('reconciliation of the books with the hot wallet (TON_NETWORK=testnet, toncenter fake)', () => {
  let l: LiveTestApp;
  let agent: TestAgent;
  let unknownHash: string;
  beforeAll(async () => {
    l = await createLiveTestApp();
    const { t, fake, live } = l;
    agent = await createAgent(t);
    await fake.sendFromFaucet(live.wallet.address, toNano('50'), agent.id);
    await fake.sendFromFaucet(live.wallet.address, toNano('4'), 'nobody');
    await fake.sendFromFaucet(live.wallet.address, toNano('6'), 'nobody either');
    await roundsUntil(l, async () => (await agentMe(t, agent)).balance === '50');
    const open = await t.ctx.db.selectFrom('unmatched_deposits').selectAll().execute();
    unknownHash = open.find((d) => d.memo === 'nobody')!.tx_hash;
    // One unmatched deposit assigned by the operator: its credit and its record are one booking.
    const assigned = open.find((d) => d.memo === 'nobody either')!;
    const res = await t.app.inject({
      method: 'POST',
      url: `/admin/deposits/unmatched/${assigned.tx_hash}/assign`,
      headers: t.admin,
      payload: { agentId: agent.id },
    });
    expect(res.statusCode, res.body).toBe(201);
    const worker = await createLiveWorker(t);
    const { taskId } = await assignedTask(t, agent, worker, { reward: '10' });
    await ok(t, agent, 'POST', `/tasks/${taskId}/complete`);
    await roundsUntil(l, async () => (await pendingRows()).length === 0);
  }, 240_000); // a fresh fake chain, app and mnemonic on a busy 2-core machine
  afterAll(() => l?.close());

  async function pendingRows() {
    return l.t.ctx.db.selectFrom('transactions').selectAll().where('status', '=', 'pending').execute();
  }

  async function reconcile(): Promise<{ ok: boolean; differences: Difference[]; [k: string]: unknown }> {
    const res = await l.t.app.inject({ method: 'GET', url: '/admin/reconciliation', headers: l.t.admin });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  }

  it('is clean when every transfer is booked once: deposits, open and assigned unmatched ones, payout and fee', async () => {
    const report = await reconcile();
    expect(report).toMatchObject({ ok: true, differences: [], stalePendingAfterSeconds: 3600 });
    expect(report.checkedRows).toBe(4); // two deposits, the payout and the fee
    expect(report.checkedUnmatched).toBe(3); // the funding, "nobody", "nobody either"
  });

  it('reports a deposit on chain that is neither credited nor kept as unmatched', async () => {
    const { t } = l;
    const row = await t.ctx.db
      .selectFrom('unmatched_deposits')
      .selectAll()
      .where('tx_hash', '=', unknownHash)
      .executeTakeFirstOrThrow();
    await t.ctx.db.deleteFrom('unmatched_deposits').where('tx_hash', '=', unknownHash).execute();
    try {
      const report = await reconcile();
      expect(report.ok).toBe(false);
      expect(report.differences).toEqual([
        expect.objectContaining({ kind: 'unbooked', ledgerId: null, txHash: unknownHash }),
      ]);
      expect(report.differences[0]!.detail).toContain('4000000000 nanoton');
    } finally {
      await t.ctx.db.insertInto('unmatched_deposits').values(row).execute();
    }
    expect((await reconcile()).ok).toBe(true);
  });

  it('lists pending rows older than the bound, and is clean again once they are on chain', async () => {
    const { t } = l;
    const worker = await createLiveWorker(t);
    const { taskId } = await assignedTask(t, agent, worker, { reward: '2' });
    await ok(t, agent, 'POST', `/tasks/${taskId}/complete`);
    const pending = await pendingRows();
    expect(pending.map((r) => r.type).sort()).toEqual(['FEE', 'PAYOUT']);
    // Young pending rows are the normal state of a payout in flight.
    expect((await reconcile()).ok).toBe(true);
    t.clock.advance(3601_000);
    const report = await reconcile();
    expect(report.ok).toBe(false);
    expect(report.differences.map((d) => [d.kind, d.ledgerId]).sort()).toEqual(
      pending.map((r) => ['stale_pending', r.id]).sort(),
    );
    await roundsUntil(l, async () => (await pendingRows()).length === 0);
    expect(await reconcile()).toMatchObject({ ok: true, differences: [] });
  });

  it('reports a transfer out of the hot wallet that no ledger row sent, whatever its comment', async () => {
    const { fake, live } = l;
    // Someone holding the mnemonic signs a batch of their own: the wallet obeys.
    const thief = WalletContractV4.create({
      workchain: 0,
      publicKey: keyPairFromSeed(randomBytes(32)).publicKey,
    }).address;
    const drain = live.wallet.signBatch({
      seq: 7_000_000,
      createdAt: live.nowSeconds() - live.createdAtLagSec,
      transfers: [{ to: thief, amountNano: toNano('3'), comment: 'gift' }],
      withInit: false,
    });
    await live.client.sendBoc(drain.boc);
    await fake.settle();
    for (let i = 0; i < 2; i++) await chainRound(l);
    expect(await fake.balance(thief)).toBe(toNano('3'));
    const report = await reconcile();
    expect(report.ok).toBe(false);
    expect(report.differences).toEqual([
      expect.objectContaining({ kind: 'foreign_outgoing', ledgerId: null, txHash: expect.any(String) }),
    ]);
    expect(report.differences[0]!.detail).toContain(`3000000000 nanoton to ${thief.toString()}`);
    expect(report.differences[0]!.detail).toContain('"gift"');
  });

  it('reports (with the audit) a DEPOSIT row planted for a transfer still open as unmatched', async () => {
    const { t } = l;
    const open = await t.ctx.db
      .selectFrom('unmatched_deposits')
      .selectAll()
      .where('tx_hash', '=', unknownHash)
      .executeTakeFirstOrThrow();
    expect(open.status).toBe('open');
    // Credited behind the operator's back, with totals kept consistent so no balance check sees it.
    const row = await creditChainDeposit(t.ctx, agent.id, {
      txHash: unknownHash,
      fromAddress: open.from_address,
      toAddress: t.services.chain.depositAddress,
      amountNano: open.amount_nano,
    });
    const report = await reconcile();
    expect(report.differences).toContainEqual(
      expect.objectContaining({ kind: 'double_booked', ledgerId: row.id, txHash: unknownHash }),
    );
    const audit = await t.app.inject({ method: 'GET', url: '/admin/audit', headers: t.admin });
    expect(audit.json().ok).toBe(false);
    expect(audit.json().problems).toEqual([
      { agentId: agent.id, problems: [expect.stringContaining(unknownHash)] },
    ]);
  });
});
