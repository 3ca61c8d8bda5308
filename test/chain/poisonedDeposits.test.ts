import { randomBytes } from 'node:crypto';
import { type Address, beginCell, type Cell, comment as textComment, toNano } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_AGENT_DEPOSITED_NANO } from '../../src/domain/agents/agents.js';
import { formatTon } from '../../src/domain/money/money.js';
import { agentMe, createAgent, expectBooksBalanced, type TestAgent } from '../helpers/fixtures.js';
import { chainRound, createLiveTestApp, type LiveTestApp, roundsUntil } from '../helpers/liveChain.js';

/**
 * Anyone can send the deposit address (the hot wallet) a message with any body the chain allows.
 * Each kind below is sent, then a normal deposit, which must be credited: no transfer can stop
 * the deposit watcher. What the poisoned one left (an unmatched deposit with its reason, or
 * nothing) is checked too, and GET /admin/chain shows no stuck or skipped transaction.
 */
type Outcome =
  | { unmatched: 'unknown_memo' | 'unreadable_memo'; memo?: string }
  /** Credited to the case's agent (a memo with control characters around it, or split over cells). */
  | 'credited'
  /** Kept nothing (bounced back, no value): no record at all. */
  | 'ignored';

interface PoisonCase {
  name: string;
  body(agentId: string): Cell;
  bounced?: boolean;
  zeroValue?: boolean;
  outcome: Outcome;
}

const op = (value: number, bits = 32) => beginCell().storeUint(value, bits);
const bytes = (text: string) => Buffer.from(text, 'utf8');
/** A text comment of `text` whose bytes are split over cells `chunk` bytes long. */
function snake(text: Buffer, chunk: number): Cell {
  const parts: Buffer[] = [];
  for (let i = 0; i < text.length; i += chunk) parts.push(text.subarray(i, i + chunk));
  let tail: Cell | null = null;
  for (const part of parts.slice(1).reverse()) {
    const b = beginCell().storeBuffer(part);
    if (tail) b.storeRef(tail);
    tail = b.endCell();
  }
  const head = op(0).storeBuffer(parts[0] ?? Buffer.alloc(0));
  if (tail) head.storeRef(tail);
  return head.endCell();
}

const CASES: PoisonCase[] = [
  {
    name: 'op 0 and a single bit (no whole byte)',
    body: () => op(0).storeBit(1).endCell(),
    outcome: { unmatched: 'unreadable_memo', memo: '' },
  },
  {
    name: 'the memo and 3 bits more',
    body: (id) => op(0).storeBuffer(bytes(id)).storeUint(5, 3).endCell(),
    outcome: { unmatched: 'unreadable_memo', memo: '' },
  },
  {
    name: 'invalid UTF-8',
    body: () =>
      op(0)
        .storeBuffer(Buffer.from([0x61, 0xff, 0xfe, 0x62]))
        .endCell(),
    outcome: { unmatched: 'unreadable_memo', memo: '' },
  },
  {
    name: 'a surrogate encoded in UTF-8 (CESU)',
    body: (id) =>
      op(0)
        .storeBuffer(Buffer.concat([bytes(id), Buffer.from([0xed, 0xa0, 0x80])]))
        .endCell(),
    outcome: { unmatched: 'unreadable_memo', memo: '' },
  },
  {
    name: 'a binary comment (op 0xff) holding the memo',
    body: (id) => op(0xff, 8).storeBuffer(bytes(id)).endCell(),
    outcome: { unmatched: 'unknown_memo', memo: '' },
  },
  {
    name: 'an encrypted comment (op 0x2167da4b)',
    body: () => op(0x2167da4b).storeBuffer(randomBytes(96)).endCell(),
    outcome: { unmatched: 'unknown_memo', memo: '' },
  },
  {
    name: 'a comment that is only NUL',
    body: () => textComment('\u0000'),
    outcome: { unmatched: 'unknown_memo', memo: '' },
  },
  {
    name: 'NUL inside a memo that names nobody',
    body: () => textComment('agt_\u0000nobody\u0000'),
    outcome: { unmatched: 'unknown_memo', memo: 'agt_nobody' },
  },
  {
    name: 'the memo with NUL and control characters around it',
    body: (id) => textComment(`\u0000\t${id}\u0007\u001b\u009f\r\n`),
    outcome: 'credited',
  },
  {
    name: 'the memo split over two cells (snake)',
    body: (id) => snake(bytes(id), 20),
    outcome: 'credited',
  },
  {
    name: 'a chain of 100 cells',
    body: (id) => snake(bytes(id.repeat(10)), 4),
    outcome: { unmatched: 'unreadable_memo', memo: '' },
  },
  {
    name: 'a comment of 1,100 bytes',
    body: () => snake(bytes('x'.repeat(1100)), 120),
    outcome: { unmatched: 'unreadable_memo', memo: '' },
  },
  {
    name: 'a second cell that is not whole bytes',
    body: (id) =>
      op(0)
        .storeBuffer(bytes(id))
        .storeRef(beginCell().storeBuffer(bytes('x')).storeBit(1))
        .endCell(),
    outcome: { unmatched: 'unreadable_memo', memo: '' },
  },
  {
    name: 'a comment that branches into two cells',
    body: (id) =>
      op(0)
        .storeBuffer(bytes(id))
        .storeRef(beginCell().storeBuffer(bytes('a')))
        .storeRef(beginCell().storeBuffer(bytes('b')))
        .endCell(),
    outcome: { unmatched: 'unreadable_memo', memo: '' },
  },
  {
    name: 'an empty body',
    body: () => beginCell().endCell(),
    outcome: { unmatched: 'unknown_memo', memo: '' },
  },
  {
    name: 'a body shorter than an op',
    body: () => op(0, 16).endCell(),
    outcome: { unmatched: 'unknown_memo', memo: '' },
  },
  {
    name: 'a bounced message carrying the memo',
    body: (id) => op(0xffffffff).storeUint(0, 32).storeBuffer(bytes(id)).endCell(),
    bounced: true,
    outcome: 'ignored',
  },
  {
    name: 'a jetton transfer notification (op 0x7362d09c) with the memo as its payload',
    body: (id) =>
      op(0x7362d09c)
        .storeUint(1, 64)
        .storeCoins(toNano('1000'))
        .storeAddress(null)
        .storeBit(0)
        .storeUint(0, 32)
        .storeBuffer(bytes(id))
        .endCell(),
    outcome: { unmatched: 'unknown_memo', memo: '' },
  },
  {
    name: 'an unknown op followed by the memo',
    body: (id) => op(0x12345678).storeBuffer(bytes(id)).endCell(),
    outcome: { unmatched: 'unknown_memo', memo: '' },
  },
  {
    name: 'the memo with no value',
    body: (id) => textComment(id),
    zeroValue: true,
    outcome: 'ignored',
  },
];

describe('the deposit watcher and transfers it cannot read', () => {
  let l: LiveTestApp;
  let hot: Address;
  beforeAll(async () => {
    l = await createLiveTestApp();
    hot = l.live.wallet.address;
    await roundsUntil(l, async () => (await watcher()).cursor !== null);
  }, 180_000); // a fresh fake chain, app and mnemonic on a busy 2-core machine
  afterAll(() => l.close());

  async function watcher() {
    const res = await l.t.app.inject({ method: 'GET', url: '/admin/chain', headers: l.t.admin });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().watcher;
  }

  /** The hash of the one transaction of the hot wallet that received exactly `amountNano`. */
  function txWithAmount(amountNano: bigint): string {
    const found = l.fake
      .history(hot)
      .filter((tx) => tx.inMessage?.info.type === 'internal' && tx.inMessage.info.value.coins === amountNano);
    expect(found).toHaveLength(1);
    return found[0]!.hash().toString('hex');
  }

  async function depositAndWait(agent: TestAgent, amount: string, expected: string) {
    await l.fake.sendFromFaucet(hot, toNano(amount), agent.id);
    await roundsUntil(l, async () => (await agentMe(l.t, agent)).balance === expected, 10);
  }

  it.each(CASES.map((c, i) => ({ ...c, i })))('$name, then a normal deposit that is credited', async (c) => {
    const agent = await createAgent(l.t);
    // Each case's amount is its own, so its transaction is found by it.
    const amountNano = c.zeroValue ? 0n : toNano('0.05') + BigInt(c.i);
    await l.fake.deliver({
      from: l.fake.faucet.address,
      to: hot,
      amountNano,
      body: c.body(agent.id),
      bounced: c.bounced,
    });
    const credited = c.outcome === 'credited' ? amountNano : 0n;
    const expected = formatTon(toNano('1') + credited);
    await depositAndWait(agent, '1', expected);

    const unmatched = await l.t.ctx.db
      .selectFrom('unmatched_deposits')
      .selectAll()
      .where('amount_nano', '=', amountNano)
      .execute();
    if (typeof c.outcome === 'object') {
      expect(unmatched).toEqual([
        expect.objectContaining({
          tx_hash: txWithAmount(amountNano),
          reason: c.outcome.unmatched,
          memo: c.outcome.memo,
          status: 'open',
        }),
      ]);
    } else if (!c.zeroValue) {
      expect(unmatched).toEqual([]);
    }
    const deposits = await l.t.ctx.db
      .selectFrom('transactions')
      .select('amount_nano')
      .where('agent_id', '=', agent.id)
      .where('type', '=', 'DEPOSIT')
      .orderBy('amount_nano')
      .execute();
    expect(deposits.map((d) => d.amount_nano)).toEqual(
      c.outcome === 'credited' ? [amountNano, toNano('1')] : [toNano('1')],
    );
    expect(await watcher()).toMatchObject({ stuck: null, skipped: { count: 0, last: null } });
  });

  it('the books balance after them all, and agree with what the chain shows', async () => {
    await expectBooksBalanced(l.t);
    const res = await l.t.app.inject({ method: 'GET', url: '/admin/reconciliation', headers: l.t.admin });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, differences: [] });
  });

  it('a transfer the books refuse is retried, shown as stuck, then kept for the operator; the next deposit is credited', async () => {
    const full = await createAgent(l.t);
    const other = await createAgent(l.t);
    // The agent is 1 TON short of its lifetime deposit limit (and has spent it all): a 2 TON
    // transfer cannot be credited.
    const near = MAX_AGENT_DEPOSITED_NANO - toNano('1');
    await l.t.ctx.db
      .updateTable('agents')
      .set({ deposited_nano: near, spent_nano: near })
      .where('id', '=', full.id)
      .execute();
    await l.fake.sendFromFaucet(hot, toNano('2.002'), full.id);
    const txHash = txWithAmount(toNano('2.002'));
    await l.fake.sendFromFaucet(hot, toNano('1'), other.id);

    await chainRound(l);
    const first = await watcher();
    expect(first.stuck).toMatchObject({ txHash, attempts: 1 });
    expect(first.stuck.error).toMatch(/deposits past/);
    expect(first.maxAttempts).toBe(3);
    expect((await agentMe(l.t, other)).balance).toBe('0'); // order is kept while it is retried

    await roundsUntil(l, async () => (await agentMe(l.t, other)).balance === '1', 10);
    const after = await watcher();
    expect(after.stuck).toBeNull();
    expect(after.skipped).toMatchObject({ count: 1, last: { txHash } });
    expect(after.skipped.last.error).toMatch(/deposits past/);
    const kept = await l.t.ctx.db
      .selectFrom('unmatched_deposits')
      .selectAll()
      .where('tx_hash', '=', txHash)
      .executeTakeFirstOrThrow();
    expect(kept).toMatchObject({ reason: 'not_credited', memo: full.id, amount_nano: toNano('2.002') });
    // Later rounds neither credit it nor count it again.
    for (let i = 0; i < 3; i++) await chainRound(l);
    expect((await watcher()).skipped.count).toBe(1);
    expect((await agentMe(l.t, full)).balance).toBe('0');
  });
});
