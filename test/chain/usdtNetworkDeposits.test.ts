import { randomBytes } from 'node:crypto';
import { Address, beginCell, type Cell, comment as textComment, toNano } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JETTON_OP } from '../../src/chain/jetton/messages.js';
import { jettonPayoutMessage, jettonQueryId } from '../../src/chain/jetton/payout.js';
import { USDT_METADATA_URI } from '../../src/chain/jetton/sandboxMaster.js';
import { readChainState } from '../../src/db/repositories/chainState.js';
import { CURSOR_KEY } from '../../src/domain/chain/chainFollower.js';
import { jettonWalletTransfers } from '../../src/domain/chain/usdtChainHistory.js';
import { createAgent, expectBooksBalanced, type TestAgent } from '../helpers/fixtures.js';
import { createLiveTestApp, createLiveWorker, type LiveTestApp, roundsUntil } from '../helpers/liveChain.js';
import { submittedTask } from '../helpers/submissionApi.js';

/**
 * USDT deposits by memo in network mode against the toncenter fake, with USDT on: a real USDT
 * transfer with an agent's memo is credited once (replayed rounds, another instance, provider
 * faults), too small or unknown goes to the unmatched queue in USDT (and the operator's
 * assignment credits USDT once), a look-alike jetton or a forged notification is listed as
 * foreign and never credited, our payouts' excesses are nobody's deposit, and reconciliation
 * compares TON and USDT with the chain (and sees a tampered USDT deposit).
 */
const USDT = 1_000_000n;

describe('USDT deposits in network mode', () => {
  let l: LiveTestApp;
  let hot: Address;
  let master: Address;
  let lookAlike: Address;

  beforeAll(async () => {
    l = await createLiveTestApp({ usdt: true });
    hot = l.live.wallet.address;
    master = l.usdtMaster!;
    lookAlike = await l.fake.deployJetton(USDT_METADATA_URI, 'look-alike-admin');
    await roundsUntil(l, async () => (await readChainState(l.t.ctx.db, CURSOR_KEY)) !== null);
  }, 180_000);
  afterAll(() => l.close());

  async function call(method: 'GET' | 'POST', url: string, headers = l.t.admin, payload?: object) {
    return l.t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  }
  async function get(url: string, headers = l.t.admin) {
    const res = await call('GET', url, headers);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  }
  const usdtOf = async (a: TestAgent) => (await get('/agents/me', a.headers)).agent.balances.USDT.balance;

  /** Runs `send` and returns the hot wallet's transaction it made. */
  async function hotTx(send: () => Promise<void>): Promise<string> {
    const before = l.fake.history(hot).length;
    await send();
    const made = l.fake.history(hot).slice(before);
    expect(made).toHaveLength(1);
    return made[0]!.hash().toString('hex');
  }
  const usdtDeposit = (memo: string, amount: bigint, jetton = master) =>
    hotTx(() => l.fake.sendJettonFromFaucet(jetton, hot, amount, memo));

  /** A transfer_notification built by a plain wallet, naming our own jetton wallet's owner and a memo. */
  const forged = (memo: Cell, ton: bigint) =>
    hotTx(() =>
      l.fake.deliver({
        from: l.fake.faucet.address,
        to: hot,
        amountNano: ton,
        body: beginCell()
          .storeUint(JETTON_OP.transferNotification, 32)
          .storeUint(7, 64)
          .storeCoins(1_000n * USDT)
          .storeAddress(l.fake.faucet.address)
          .storeBit(true)
          .storeRef(memo)
          .endCell(),
      }),
    );
  /** An excesses message, as a recipient's jetton wallet returns a payout's unused TON. */
  const excesses = (queryId: bigint, ton: bigint) =>
    hotTx(() =>
      l.fake.deliver({
        from: new Address(0, randomBytes(32)),
        to: hot,
        amountNano: ton,
        body: beginCell().storeUint(JETTON_OP.excesses, 32).storeUint(queryId, 64).endCell(),
      }),
    );

  async function caughtUp(): Promise<boolean> {
    const raw = await readChainState(l.t.ctx.db, CURSOR_KEY);
    return raw !== null && BigInt(JSON.parse(raw).lt) === l.fake.history(hot).at(-1)!.lt;
  }
  const deposits = (agentId: string) =>
    l.t.ctx.db
      .selectFrom('transactions')
      .select(['amount_nano', 'tx_hash', 'currency'])
      .where('type', '=', 'DEPOSIT')
      .where('agent_id', '=', agentId)
      .orderBy('id')
      .execute();
  const unmatched = async (txHash: string) =>
    ((await get('/admin/deposits/unmatched?status=open')).deposits as { txHash: string }[]).find(
      (d) => d.txHash === txHash,
    );

  async function expectReconciled() {
    const report = await get('/admin/reconciliation');
    expect(report.currencies.TON, JSON.stringify(report.differences)).toMatchObject({
      state: 'compared',
      ok: true,
      differences: [],
    });
    expect(report.currencies.USDT, JSON.stringify(report.currencies.USDT.differences)).toMatchObject({
      state: 'compared',
      ok: true,
      differences: [],
    });
    expect(report).toMatchObject({ ok: true, unprocessedTransactions: 0 });
    return report;
  }

  it('credits USDT by memo once; small or unknown waits as USDT; foreign and excesses are never credited; reconciliation compares both', async () => {
    const agent = await createAgent(l.t);
    // A provider failing during the walk and the wallet lookup: the round stops, the next goes on.
    l.fake.inject('runGetMethod', { kind: 'status', status: 502 });
    l.fake.inject('getTransactions', { kind: 'status', status: 503 }, 2);
    l.fake.inject('getTransactions', { kind: 'status', status: 429, retryAfterSec: 0 });
    const credited = await usdtDeposit(agent.id, 5n * USDT);
    const small = await usdtDeposit(agent.id, 5_000n); // 0.005 USDT, under the 0.01 minimum
    const unknown = await usdtDeposit('for my friend', 2n * USDT);
    const fromLookAlike = await usdtDeposit(agent.id, 500n * USDT, lookAlike);
    const forgedTx = await forged(textComment(agent.id), toNano('0.3'));
    const strangerExcesses = await excesses(42n, toNano('0.02'));
    await roundsUntil(l, caughtUp, 20);

    expect(await usdtOf(agent)).toBe('5');
    expect((await get('/agents/me', agent.headers)).agent.balance).toBe('0');
    expect(await deposits(agent.id)).toEqual([
      { amount_nano: 5n * USDT, tx_hash: credited, currency: 'USDT' },
    ]);
    const event = await l.t.ctx.db
      .selectFrom('events')
      .select('data_json')
      .where('agent_id', '=', agent.id)
      .where('type', '=', 'deposit.received')
      .execute();
    expect(event.map((e) => JSON.parse(e.data_json).deposit)).toMatchObject([
      { amount: '5', currency: 'USDT', txHash: credited, fromAddress: expect.any(String) },
    ]);
    expect(await unmatched(small)).toMatchObject({
      currency: 'USDT',
      amount: '0.005',
      reason: 'below_minimum',
      memo: agent.id,
    });
    expect(await unmatched(unknown)).toMatchObject({
      currency: 'USDT',
      amount: '2',
      reason: 'unknown_memo',
      memo: 'for my friend',
    });
    // Foreign: listed with the TON they brought and what they claimed, never as USDT.
    expect(await unmatched(fromLookAlike)).toMatchObject({
      currency: 'TON',
      amount: '0.000000001',
      reason: 'foreign_jetton',
      memo: agent.id,
      jetton: { claimedAmount: (500n * USDT).toString() },
    });
    expect(await unmatched(forgedTx)).toMatchObject({
      currency: 'TON',
      amount: '0.3',
      reason: 'foreign_jetton',
      jetton: { wallet: expect.any(String), claimedAmount: (1_000n * USDT).toString() },
    });
    // A stranger's excesses is TON that arrived, kept as today (no memo).
    expect(await unmatched(strangerExcesses)).toMatchObject({
      currency: 'TON',
      amount: '0.02',
      reason: 'unknown_memo',
    });
    expect((await get('/admin/chain')).watcher).toMatchObject({ stuck: null, skipped: { count: 0 } });

    // The operator: a foreign one cannot be assigned; a USDT one is credited in USDT, once.
    const foreign = await call('POST', `/admin/deposits/unmatched/${forgedTx}/assign`, l.t.admin, {
      agentId: agent.id,
    });
    expect(foreign.statusCode).toBe(409);
    expect(foreign.json().error).toMatch(/not USDT/);
    for (let i = 0; i < 2; i++) {
      const assigned = await call('POST', `/admin/deposits/unmatched/${unknown}/assign`, l.t.admin, {
        agentId: agent.id,
      });
      expect(assigned.statusCode, assigned.body).toBe(201);
      expect(assigned.json().transaction).toMatchObject({ amount: '2', currency: 'USDT' });
    }
    expect(await usdtOf(agent)).toBe('7');
    await expectReconciled();
    await expectBooksBalanced(l.t);

    // Replayed rounds (the cursor lost: the whole history again) and another instance: nothing moves.
    await l.t.ctx.db.deleteFrom('chain_state').where('key', '=', CURSOR_KEY).execute();
    await roundsUntil(l, caughtUp, 20);
    const other = await createLiveTestApp({ sharedWith: l, usdt: true });
    try {
      await other.t.ctx.db.deleteFrom('chain_state').where('key', '=', CURSOR_KEY).execute();
      await roundsUntil(other, caughtUp, 20);
      const again = await usdtDeposit(agent.id, 3n * USDT);
      await roundsUntil(other, caughtUp, 20);
      expect(await deposits(agent.id)).toEqual([
        { amount_nano: 5n * USDT, tx_hash: credited, currency: 'USDT' },
        { amount_nano: 2n * USDT, tx_hash: unknown, currency: 'USDT' },
        { amount_nano: 3n * USDT, tx_hash: again, currency: 'USDT' },
      ]);
    } finally {
      await other.close();
    }
    expect(await usdtOf(agent)).toBe('10');

    // Past the agent's USDT_MAX_AGENT_DEPOSITS (lowered for a moment): kept as USDT, not failed.
    const limit = l.t.ctx.usdt.maxAgentDepositedMicro;
    l.t.ctx.usdt.maxAgentDepositedMicro = 11n * USDT;
    try {
      const tooMuch = await usdtDeposit(agent.id, 3n * USDT);
      await roundsUntil(l, caughtUp, 20);
      expect(await unmatched(tooMuch)).toMatchObject({
        currency: 'USDT',
        amount: '3',
        reason: 'above_limit',
      });
      const refused = await call('POST', `/admin/deposits/unmatched/${tooMuch}/assign`, l.t.admin, {
        agentId: agent.id,
      });
      expect(refused.statusCode, refused.body).toBe(409);
    } finally {
      l.t.ctx.usdt.maxAgentDepositedMicro = limit;
    }
    expect(await usdtOf(agent)).toBe('10');

    // Our USDT payouts' excesses: gas coming back, booked nowhere (the payouts wait for the
    // jetton sender, which is not this test's).
    const worker = await createLiveWorker(l.t);
    const { taskId } = await submittedTask(l.t, agent, worker, { currency: 'USDT', reward: '1' });
    const done = await call('POST', `/tasks/${taskId}/complete`, agent.headers);
    expect(done.statusCode, done.body).toBe(200);
    const payouts = await l.t.ctx.db
      .selectFrom('chain_transfers')
      .select('txn_id')
      .where('currency', '=', 'USDT')
      .execute();
    expect(payouts.length).toBeGreaterThan(0);
    const ours = await excesses(jettonQueryId(payouts[0]!.txn_id), toNano('0.03'));
    await roundsUntil(l, caughtUp, 20);
    expect(await unmatched(ours)).toBeUndefined();
    expect(
      await l.t.ctx.db.selectFrom('transactions').select('id').where('tx_hash', '=', ours).execute(),
    ).toEqual([]);
    const report = await expectReconciled();
    expect(report.currencies.USDT.books.deposits).toEqual({ count: 3, total: '10' });
    await expectBooksBalanced(l.t);

    // A tampered USDT deposit row shows as a USDT difference (and TON stays clean).
    await l.t.ctx.db
      .updateTable('transactions')
      .set({ amount_nano: 6n * USDT })
      .where('tx_hash', '=', credited)
      .execute();
    const tampered = await get('/admin/reconciliation');
    expect(tampered.ok).toBe(false);
    expect(tampered.currencies.TON.ok).toBe(true);
    expect(tampered.currencies.USDT.differences).toEqual([
      {
        kind: 'amount',
        ledgerId: expect.any(String),
        txHash: credited,
        detail: 'books 6000000 micro-USDT, chain 5000000 micro-USDT',
      },
    ]);
    await l.t.ctx.db
      .updateTable('transactions')
      .set({ amount_nano: 5n * USDT })
      .where('tx_hash', '=', credited)
      .execute();
  }, 240_000);

  it("reads the hot jetton wallet's transfers out for USDT reconciliation; one no ledger row sent is foreign", async () => {
    // The hot wallet holds USDT (minted, no notification) and sends two jetton transfers in one
    // Highload batch of its own (not the service's sender): one it can cover, one it cannot.
    await l.fake.mintJetton(master, hot, 10n * USDT);
    const own = Address.parse(await l.t.ctx.chain.jetton!.walletAddress(hot.toString()));
    const [paid, refused] = [new Address(0, randomBytes(32)), new Address(0, randomBytes(32))];
    const message = (transferId: string, toOwner: Address, amount: bigint) =>
      jettonPayoutMessage({
        transferId,
        hotJettonWallet: own,
        hotWallet: hot,
        toOwner,
        amount,
        comment: `c ${transferId}`,
      });
    const batch = l.live.wallet.signBatch({
      seq: 50_000,
      createdAt: l.fake.nowSeconds() - 5,
      transfers: [message('txn_x_ok', paid, 3n * USDT), message('txn_x_no', refused, 1_000n * USDT)],
      withInit: true,
    });
    await l.live.client.sendBoc(batch.boc);
    await l.fake.settle();
    const history = l.fake
      .history(own)
      .reverse()
      .map((tx) => ({ tx, lt: tx.lt, hash: tx.hash().toString('hex') }));
    // The service's own USDT payouts and fees of the tests above went out of the same wallet.
    const out = [...jettonWalletTransfers(history, hot).values()].filter((o) =>
      o.comment.startsWith('c txn_x'),
    );
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ amountNano: 3n * USDT, comment: 'c txn_x_ok' });
    expect(out[0]!.to.equals(paid)).toBe(true);

    await roundsUntil(l, caughtUp, 20);
    const report = await get('/admin/reconciliation');
    // TON: the batch's messages to our jetton wallet carried gas, not TON payouts; the excess of
    // a transfer no chain transfer row names is TON that arrived, kept unmatched as any.
    expect(report.currencies.TON, JSON.stringify(report.differences)).toMatchObject({ ok: true });
    expect(report.currencies.USDT.differences).toEqual([
      {
        kind: 'foreign_outgoing',
        ledgerId: null,
        txHash: out[0]!.messageHash,
        detail: expect.stringMatching(/^3000000 micro-USDT to .* was sent by no ledger row/),
      },
    ]);
  }, 120_000);
});
