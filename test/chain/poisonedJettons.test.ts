import { randomBytes } from 'node:crypto';
import { Address, beginCell, type Cell, comment as textComment, toNano } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeJettonWalletAddress } from '../../src/chain/jetton/contracts.js';
import { JETTON_OP } from '../../src/chain/jetton/messages.js';
import { USDT_METADATA_URI } from '../../src/chain/jetton/sandboxMaster.js';
import { readChainState } from '../../src/db/repositories/chainState.js';
import { CURSOR_KEY } from '../../src/domain/chain/chainFollower.js';
import { formatTon } from '../../src/domain/money/money.js';
import { createAgent, expectBooksBalanced, type TestAgent } from '../helpers/fixtures.js';
import { createLiveTestApp, type LiveTestApp, roundsUntil } from '../helpers/liveChain.js';

/**
 * USDT is off in the books (src/usdtConfig.ts), so the deposit watcher applies no jetton rules,
 * yet anyone can send the deposit address (the hot wallet) jetton traffic: transfers of
 * the sandbox's real USDT or of a look-alike master with the same name and code, notifications
 * forged by a plain wallet, comments that are not text, bounces. None of it may move an agent's
 * money: the watcher credits TON only, by a plain text comment on the message the hot wallet
 * itself received. What such a message does bring in TON (a jetton wallet forwards
 * `forward_ton_amount` with its notification; a forger attaches what it likes) did arrive, so it is
 * kept for the operator as an unmatched deposit with no memo, where the reconciliation finds it.
 * With USDT on, test/chain/usdtNetworkDeposits.test.ts pins the other behaviour: our own jetton
 * wallet's notifications credited in USDT, look-alikes and forgeries listed as foreign_jetton.
 */
const USDT = 1_000_000n;

/** What a hostile message left in the books. */
type Outcome =
  /** The hot wallet kept TON from it: an open unmatched deposit (memo '', reason unknown_memo). */
  | 'unmatched'
  /** Nothing: it carried no value the wallet kept (a bounce), or never reached the hot wallet. */
  | 'ignored';

interface Sent {
  name: string;
  /** The hot wallet's transactions the message made (none when it never reached the hot wallet). */
  hashes: string[];
  outcome: Outcome;
}

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('hostile jetton traffic to the deposit address while USDT is off', () => {
  let l: LiveTestApp;
  let hot: Address;
  let faucet: Address;
  let usdtMaster: Address;
  let lookAlike: Address;

  beforeAll(async () => {
    l = await createLiveTestApp();
    hot = l.live.wallet.address;
    faucet = l.fake.faucet.address;
    // The sandbox's USDT and a look-alike: same code, same metadata (name, symbol, decimals).
    usdtMaster = await l.fake.deployJetton(USDT_METADATA_URI, 'usdt-admin');
    lookAlike = await l.fake.deployJetton(USDT_METADATA_URI, 'look-alike-admin');
    // The attacker (the faucet) holds plenty of both.
    await l.fake.mintJetton(usdtMaster, faucet, 10_000_000n * USDT);
    await l.fake.mintJetton(lookAlike, faucet, 10_000_000n * USDT);
    await roundsUntil(l, async () => (await readChainState(l.t.ctx.db, CURSOR_KEY)) !== null);
  }, 180_000); // a fresh fake chain, app and mnemonic on a busy 2-core machine
  afterAll(() => l.close());

  async function get(url: string, headers = l.t.admin) {
    const res = await l.t.app.inject({ method: 'GET', url, headers });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  }
  const me = async (agent: TestAgent) => (await get('/agents/me', agent.headers)).agent;

  /** Runs `send` and returns the hashes of the hot wallet's transactions it made. */
  async function hotTxsOf(send: () => Promise<void>): Promise<string[]> {
    const before = l.fake.history(hot).length;
    await send();
    return l.fake
      .history(hot)
      .slice(before)
      .map((tx) => tx.hash().toString('hex'));
  }

  let queryId = 1n;
  /**
   * A real TEP-74 transfer from the faucet's jetton wallet of `master` to the hot wallet: the hot
   * wallet's jetton wallet takes the jettons and notifies the hot wallet with `forwardTon` and
   * the forward payload, in a reference (a memo does not fit inline next to two addresses).
   */
  function jettonTransfer(
    master: Address,
    o: {
      amount: bigint;
      forwardTon: bigint;
      payload: Cell;
      to?: Address;
      response?: Address;
    },
  ) {
    const body = beginCell()
      .storeUint(JETTON_OP.transfer, 32)
      .storeUint(queryId++, 64)
      .storeCoins(o.amount)
      .storeAddress(o.to ?? hot)
      .storeAddress(o.response ?? faucet)
      .storeBit(false) // no custom payload
      .storeCoins(o.forwardTon)
      .storeBit(true)
      .storeRef(o.payload);
    return l.fake.deliver({
      from: faucet,
      to: computeJettonWalletAddress(faucet, master),
      amountNano: o.forwardTon + toNano('0.1'),
      body: body.endCell(),
      bounce: true,
    });
  }

  /** A transfer_notification built by a plain wallet (the faucet), not sent by any jetton wallet. */
  function forgedNotification(memoPayload: Cell, attachedTon: bigint, inline = false) {
    const body = beginCell()
      .storeUint(JETTON_OP.transferNotification, 32)
      .storeUint(queryId++, 64)
      .storeCoins(1_000_000n * USDT)
      .storeAddress(faucet);
    if (inline) body.storeBit(false).storeSlice(memoPayload.beginParse());
    else body.storeBit(true).storeRef(memoPayload);
    return l.fake.deliver({ from: faucet, to: hot, amountNano: attachedTon, body: body.endCell() });
  }

  /**
   * A bounced jetton message with TON in it, as the chain delivers a bounce: flag set, body
   * 0xffffffff and the start of the message that bounced (here an internal_transfer), sent by the
   * hot wallet's own USDT jetton wallet. A real one cannot be provoked: the hot wallet sends no
   * jetton messages while USDT is off, and a jetton transfer that fails bounces to its sender's
   * jetton wallet, never to the hot wallet; so it is delivered as the chain would.
   */
  function bouncedJetton(agentId: string, value: bigint) {
    const body = beginCell()
      .storeUint(0xffffffff, 32)
      .storeUint(JETTON_OP.internalTransfer, 32)
      .storeUint(queryId++, 64)
      .storeCoins(1_000n * USDT)
      .storeBuffer(bytes(agentId.slice(0, 8)))
      .endCell();
    return l.fake.deliver({
      from: computeJettonWalletAddress(hot, usdtMaster),
      to: hot,
      amountNano: value,
      body,
      bounced: true,
    });
  }

  /** A text comment of the agent's memo wrapped in a NUL byte and invalid UTF-8. */
  const brokenComment = (agentId: string) =>
    beginCell()
      .storeUint(0, 32)
      .storeBuffer(Buffer.concat([Buffer.from([0]), bytes(agentId), Buffer.from([0xff, 0xfe, 0xc3])]))
      .endCell();

  /** What the hot wallet's jetton wallet of `master` holds, as the chain says (get_wallet_data). */
  async function jettonBalance(master: Address): Promise<bigint> {
    const data = await l.fake.blockchain.runGetMethod(
      computeJettonWalletAddress(hot, master),
      'get_wallet_data',
    );
    return data.stackReader.readBigNumber();
  }

  /** The hot wallet's history is processed through its newest transaction. */
  async function watcherCaughtUp(): Promise<boolean> {
    const raw = await readChainState(l.t.ctx.db, CURSOR_KEY);
    const newest = l.fake.history(hot).at(-1)!;
    return raw !== null && BigInt(JSON.parse(raw).lt) === newest.lt;
  }

  async function depositRows(agentIds: string[]) {
    return l.t.ctx.db
      .selectFrom('transactions')
      .select(['agent_id', 'amount_nano', 'tx_hash', 'currency'])
      .where('type', '=', 'DEPOSIT')
      .where('agent_id', 'in', agentIds)
      .orderBy('id')
      .execute();
  }

  /** Every hostile message is in the books as its outcome says, and nowhere else. */
  async function expectHostileBooked(sent: Sent[]) {
    const unmatched = await l.t.ctx.db.selectFrom('unmatched_deposits').selectAll().execute();
    const byHash = new Map(unmatched.map((u) => [u.tx_hash, u]));
    const credited = new Set(
      (
        await l.t.ctx.db
          .selectFrom('transactions')
          .select('tx_hash')
          .where('type', '=', 'DEPOSIT')
          .where('tx_hash', 'is not', null)
          .execute()
      ).map((r) => r.tx_hash),
    );
    const history = new Map(l.fake.history(hot).map((tx) => [tx.hash().toString('hex'), tx]));
    for (const s of sent) {
      for (const hash of s.hashes) {
        expect(credited.has(hash), `${s.name}: credited`).toBe(false);
        const row = byHash.get(hash);
        if (s.outcome === 'ignored') {
          expect(row, `${s.name}: kept`).toBeUndefined();
          continue;
        }
        const info = history.get(hash)!.inMessage!.info;
        if (info.type !== 'internal') throw new Error(`${s.name}: not an internal message`);
        // No memo: the watcher reads only a plain text comment, never a jetton forward payload.
        expect(row, s.name).toMatchObject({
          reason: 'unknown_memo',
          memo: '',
          status: 'open',
          agent_id: null,
          amount_nano: info.value.coins,
        });
      }
    }
  }

  async function expectChainAndBooksAgree() {
    // No stuck or skipped transaction: the watcher read every hostile message without failing.
    expect((await get('/admin/chain')).watcher).toMatchObject({ stuck: null, skipped: { count: 0 } });
    const reconciliation = await get('/admin/reconciliation');
    expect(reconciliation).toMatchObject({ ok: true, differences: [], unprocessedTransactions: 0 });
    // The USDT side has nothing to compare while the jetton layer is off, and no USDT deposit.
    expect(reconciliation.currencies.USDT).toMatchObject({
      state: 'chain_side_not_available',
      books: { deposits: { count: 0, total: '0' } },
      differences: [],
    });
    await expectBooksBalanced(l.t); // GET /admin/audit
  }

  it('each kind is kept for the operator or ignored, never credited; the TON deposit is credited once', async () => {
    expect(l.t.ctx.usdt.enabled).toBe(false);
    const agent = await createAgent(l.t);
    const memo = () => textComment(agent.id);
    const sent: Sent[] = [];
    const send = async (name: string, outcome: Outcome, run: () => Promise<void>) =>
      sent.push({ name, outcome, hashes: await hotTxsOf(run) });

    // (a) A look-alike master's jetton with the agent's memo: its notification brings
    // forward_ton_amount of TON, which is unmatched (a jetton notification is not a text comment).
    await send('look-alike jetton, memo in the forward payload', 'unmatched', () =>
      jettonTransfer(lookAlike, { amount: 500n * USDT, forwardTon: toNano('0.02'), payload: memo() }),
    );
    // (b) The real (sandbox) USDT, the same way; and as the fake's own helper sends it (1 nanoton).
    await send('real USDT, memo in the forward payload', 'unmatched', () =>
      jettonTransfer(usdtMaster, { amount: 5n * USDT, forwardTon: toNano('0.03'), payload: memo() }),
    );
    await send('real USDT sent by a wallet app (1 nanoton forwarded)', 'unmatched', () =>
      l.fake.sendJettonFromFaucet(usdtMaster, hot, 3n * USDT, agent.id),
    );
    // With forward_ton_amount 0 the jetton wallet notifies nobody: the hot wallet sees nothing.
    await send('real USDT with no TON forwarded', 'ignored', () =>
      jettonTransfer(usdtMaster, { amount: 9n * USDT, forwardTon: 0n, payload: memo() }),
    );
    // (c) A notification forged by a plain wallet, with TON attached: the TON is real, so unmatched.
    await send('forged transfer_notification, memo in a reference', 'unmatched', () =>
      forgedNotification(memo(), toNano('0.3')),
    );
    await send('forged transfer_notification, memo inline', 'unmatched', () =>
      forgedNotification(memo(), toNano('0.301'), true),
    );
    // (d) A comment with a NUL byte and invalid UTF-8 around the memo, in a real transfer and a forged one.
    await send('real USDT, NUL and invalid UTF-8 in the comment', 'unmatched', () =>
      jettonTransfer(usdtMaster, {
        amount: 4n * USDT,
        forwardTon: toNano('0.04'),
        payload: brokenComment(agent.id),
      }),
    );
    await send('look-alike jetton, NUL and invalid UTF-8 in the comment', 'unmatched', () =>
      jettonTransfer(lookAlike, {
        amount: 4n * USDT,
        forwardTon: toNano('0.041'),
        payload: brokenComment(agent.id),
      }),
    );
    await send('forged notification, NUL and invalid UTF-8', 'unmatched', () =>
      forgedNotification(brokenComment(agent.id), toNano('0.302')),
    );
    // (e) A bounced jetton message: a bounce returns what the wallet sent, it is nobody's deposit.
    await send('bounced jetton internal_transfer with TON', 'ignored', () =>
      bouncedJetton(agent.id, toNano('0.5')),
    );
    // Someone else's jetton transfer naming the hot wallet for its excess TON (op excesses, no memo).
    await send('excesses of a stranger’s jetton transfer', 'unmatched', () =>
      jettonTransfer(usdtMaster, {
        amount: USDT,
        forwardTon: 0n,
        payload: memo(),
        to: new Address(0, randomBytes(32)),
        response: hot,
      }),
    );
    for (const s of sent)
      expect(s.hashes, s.name).toHaveLength(s.name === 'real USDT with no TON forwarded' ? 0 : 1);
    // The jettons really arrived: the hot wallet's jetton wallets hold them (the books will not).
    expect(await jettonBalance(usdtMaster)).toBe((5n + 3n + 9n + 4n) * USDT);
    expect(await jettonBalance(lookAlike)).toBe((500n + 4n) * USDT);

    // The one legitimate deposit: TON with the agent's memo as a plain text comment.
    const [legit] = await hotTxsOf(() => l.fake.sendFromFaucet(hot, toNano('1.5'), agent.id));
    await roundsUntil(l, watcherCaughtUp, 20);

    const view = await me(agent);
    expect(view.balance).toBe('1.5');
    expect(view.balances).toMatchObject({
      TON: { balance: '1.5', lockedByTasks: '0' },
      USDT: { balance: '0', lockedByTasks: '0' },
    });
    expect(await depositRows([agent.id])).toEqual([
      { agent_id: agent.id, amount_nano: toNano('1.5'), tx_hash: legit, currency: 'TON' },
    ]);
    await expectHostileBooked(sent);
    // The operator sees the unmatched ones, with the TON they brought and no memo to go by.
    const open = (await get('/admin/deposits/unmatched')).deposits as {
      txHash: string;
      memo: string;
      amount: string;
    }[];
    for (const s of sent.filter((x) => x.outcome === 'unmatched')) {
      const shown = open.find((d) => d.txHash === s.hashes[0]);
      expect(shown, s.name).toMatchObject({ memo: '', reason: 'unknown_memo' });
    }
    expect(open.find((d) => d.amount === '0.3')).toBeDefined();
    await expectChainAndBooksAgree();

    // Not stuck: a later deposit is credited.
    await l.fake.sendFromFaucet(hot, toNano('0.7'), agent.id);
    await roundsUntil(l, async () => (await me(agent)).balance === '2.2', 10);
    expect((await me(agent)).balances.USDT.balance).toBe('0');
    await expectChainAndBooksAgree();
  }, 120_000);

  it('a backlog of hundreds of hostile jetton messages among TON deposits: each deposit credited once, nothing else', async () => {
    const HOSTILE = 600;
    const agents: TestAgent[] = [];
    for (let i = 0; i < 5; i++) agents.push(await createAgent(l.t));
    const sent: Sent[] = [];
    const legit: { agent: TestAgent; amountNano: bigint; hash: string }[] = [];
    // Real jetton transfers cost the chain four transactions each: a third of the flood is real
    // (USDT and the look-alike), the rest forged notifications and bounces, one transaction each.
    const kinds: { outcome: Outcome; send(agent: TestAgent, ton: bigint, i: number): Promise<void> }[] = [
      {
        outcome: 'unmatched',
        send: (a, ton, i) =>
          jettonTransfer(usdtMaster, {
            amount: USDT + BigInt(i),
            forwardTon: ton,
            payload: textComment(a.id),
          }),
      },
      {
        outcome: 'unmatched',
        send: (a, ton) =>
          jettonTransfer(lookAlike, { amount: 100n * USDT, forwardTon: ton, payload: textComment(a.id) }),
      },
      { outcome: 'unmatched', send: (a, ton) => forgedNotification(textComment(a.id), ton) },
      { outcome: 'unmatched', send: (a, ton) => forgedNotification(textComment(a.id), ton, true) },
      { outcome: 'unmatched', send: (a, ton) => forgedNotification(brokenComment(a.id), ton, true) },
      { outcome: 'ignored', send: (a, ton) => bouncedJetton(a.id, ton) },
    ];
    // Each message makes exactly one transaction of the hot wallet, in the order sent (checked
    // below by count and by the legitimate deposits' bodies); the history is read once at the end,
    // as reading it after each message would parse it all again each time.
    const order: (Sent | (typeof legit)[number])[] = [];
    const start = l.fake.history(hot).length;
    for (let i = 0; i < HOSTILE; i++) {
      const agent = agents[i % agents.length]!;
      const kind = kinds[i % kinds.length]!;
      await kind.send(agent, toNano('0.01') + BigInt(i), i);
      const hostile: Sent = {
        name: `hostile #${i} (kind ${i % kinds.length})`,
        outcome: kind.outcome,
        hashes: [],
      };
      sent.push(hostile);
      order.push(hostile);
      // A legitimate deposit after every fifth hostile message.
      if (i % 5 === 4) {
        const deposit = { agent, amountNano: toNano('0.2') + BigInt(i), hash: '' };
        await l.fake.sendFromFaucet(hot, deposit.amountNano, agent.id);
        legit.push(deposit);
        order.push(deposit);
      }
    }
    const made = l.fake.history(hot).slice(start);
    expect(made).toHaveLength(order.length);
    for (const [i, tx] of made.entries()) {
      const item = order[i]!;
      const hash = tx.hash().toString('hex');
      if ('hashes' in item) item.hashes.push(hash);
      else {
        expect(tx.inMessage?.body.equals(textComment(item.agent.id))).toBe(true);
        item.hash = hash;
      }
    }

    await roundsUntil(l, watcherCaughtUp, 30);

    for (const agent of agents) {
      const sum = legit.filter((d) => d.agent === agent).reduce((a, d) => a + d.amountNano, 0n);
      const view = await me(agent);
      expect(view.balances).toMatchObject({
        TON: { balance: formatTon(sum), lockedByTasks: '0' },
        USDT: { balance: '0', lockedByTasks: '0' },
      });
    }
    // Each deposit exactly once, in the chain's order; no other DEPOSIT row for these agents.
    const rows = await depositRows(agents.map((a) => a.id));
    expect(rows.map((r) => r.tx_hash)).toEqual(legit.map((d) => d.hash));
    expect(rows.every((r) => r.currency === 'TON')).toBe(true);
    await expectHostileBooked(sent);
    const unmatchedHere = await l.t.ctx.db
      .selectFrom('unmatched_deposits')
      .select('tx_hash')
      .where(
        'tx_hash',
        'in',
        sent.flatMap((s) => s.hashes),
      )
      .execute();
    expect(unmatchedHere).toHaveLength(sent.filter((s) => s.outcome === 'unmatched').length);
    await expectChainAndBooksAgree();

    // Not stuck: a later deposit is credited.
    const last = agents[0]!;
    const before = (await me(last)).balance;
    await l.fake.sendFromFaucet(hot, toNano('1'), last.id);
    await roundsUntil(l, async () => (await me(last)).balance !== before, 10);
    expect((await me(last)).balance).toBe(formatTon(toNano(before) + toNano('1')));
    await expectChainAndBooksAgree();
  }, 240_000);
});
