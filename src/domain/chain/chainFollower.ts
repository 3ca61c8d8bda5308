import { Address, beginCell, Cell, loadTransaction, storeMessage, type Transaction } from '@ton/core';
import { formatAddress } from '../../chain/address.js';
import { readBatchSeq } from '../../chain/highloadWallet.js';
import { readTransferRequest } from '../../chain/jetton/messages.js';
import { jettonQueryId } from '../../chain/jetton/payout.js';
import type { LiveChain } from '../../chain/liveChain.js';
import { cleanMemo, readComment, readTextComment } from '../../chain/textComment.js';
import type { ChainTransaction } from '../../chain/toncenterClient.js';
import { findAgent } from '../../db/repositories/agents.js';
import {
  detachTransfers,
  findBatchByMessageHash,
  findBatchBySeq,
  listBatchTransfers,
  markBatchLanded,
  markJettonSent,
  setChainTxHash,
} from '../../db/repositories/chainBatches.js';
import { readChainState, writeChainState } from '../../db/repositories/chainState.js';
import { dropWalkTransactionsUpTo, oldestWalkTransactions } from '../../db/repositories/chainWalk.js';
import { insertUnmatchedDeposit, type UnmatchedDepositRow } from '../../db/repositories/unmatchedDeposits.js';
import { creditChainDeposit, MIN_DEPOSIT_NANO } from '../agents/agents.js';
import type { DomainContext } from '../context.js';
import { isIdOf } from '../ids.js';
import { confirmTransfer } from '../money/payouts.js';
import { clipText } from '../text.js';
import { inTransaction } from '../transaction.js';
import { SYNCED_KEY } from './chainSender.js';
import { type Cursor, continueWalk, endWalk } from './chainWalk.js';
import {
  clearStuck,
  MAX_TX_ATTEMPTS,
  readStuck,
  recordFailure,
  recordSkipped,
  type StuckTransaction,
} from './followerProblems.js';
import { confirmJettonPayouts } from './jettonConfirmations.js';
import { keepJettonNotCredited, recordJettonTraffic } from './jettonDeposits.js';
import { CHAIN_LEASE, type LeaseGuard, LeaseLost } from './lease.js';

/** An unmatched deposit keeps this many characters of its memo (an agent id is 44). */
const MAX_STORED_MEMO = 200;

/**
 * Network mode: follows the hot wallet's transactions (it is also the deposit address) with a
 * persisted (lt, hash) cursor and acts on each committed transaction once, oldest first:
 * - the external message of a batch marks the batch landed (so it is never re-issued);
 * - the wallet's internal_transfer transaction confirms each transfer whose out-message it shows
 *   (with that transaction's hash), and releases those it skipped (e.g. no funds) to a new batch;
 *   a USDT transfer it shows is only recorded as sent (its lt): the jetton wallets confirm it
 *   later (jettonConfirmations.ts, a few each round), or it goes into a new batch if it failed;
 * - an incoming transfer from anyone else is a deposit: credited to the agent named by its memo
 *   (once per transaction hash), or kept for the operator when the memo matches nobody.
 */
export const CURSOR_KEY = 'wallet_cursor';
/**
 * Pages a round may read when the request budget is not given: the follower shares the provider's
 * budget with the payout sender, so a long walk goes a few pages a round (see walkRequestsPerRound).
 */
const DEFAULT_WALK_REQUESTS = 4;
/** At most this many kept transactions are processed per round (database work only). */
const MAX_PROCESSED_PER_ROUND = 1_000;
/** The cursor is saved at least this often while a round processes. */
const CURSOR_EVERY = 100;

/**
 * One round: walk back towards the cursor within this round's request budget, keeping what it
 * reads; once the walk has reached the cursor, process what it kept, oldest first, each once.
 * Returns how many transactions this round processed.
 */
export async function followWallet(
  ctx: DomainContext,
  live: LiveChain,
  /**
   * The chain lease (background jobs): the round stops when this instance no longer holds it,
   * and its walk and cursor are written only under it, so a holder that lost the lease while
   * paused cannot move the cursor back under the new holder. Null: unguarded (tests, bench).
   */
  lease: LeaseGuard | null = null,
): Promise<number> {
  let processed: number;
  try {
    processed = await followRound(ctx, live, lease);
  } catch (error) {
    if (error instanceof LeaseLost) return 0; // the new holder goes on from the saved cursor
    throw error;
  }
  // USDT payouts that left the hot wallet: paid once the jetton wallets show it (a few a round).
  await confirmJettonPayouts(ctx, live, lease);
  return processed;
}

async function followRound(ctx: DomainContext, live: LiveChain, lease: LeaseGuard | null): Promise<number> {
  if (lease && !lease.held()) return 0;
  const raw = await readChainState(ctx.db, CURSOR_KEY);
  const cursor = raw ? (JSON.parse(raw) as Cursor) : null;
  const budget = live.walkRequestsPerRound ?? DEFAULT_WALK_REQUESTS;
  const walk = await continueWalk(ctx, live, cursor, budget, lease);
  if (!walk.done) return 0; // the next round goes on from where this one stopped
  const rows = await oldestWalkTransactions(ctx.db, MAX_PROCESSED_PER_ROUND);
  let stuck = await readStuck(ctx.db);
  let processed: Cursor | null = null;
  let unsaved = 0;
  // The cursor moves every CURSOR_EVERY transactions, not after each: processing one again
  // after a crash changes nothing (each effect is keyed by the transaction's hash).
  const saveCursor = async () => {
    if (!processed || unsaved === 0) return;
    const at = processed;
    await inTransaction(ctx.db, async (trx) => {
      await lease?.fence(trx);
      await writeChainState(trx, CURSOR_KEY, JSON.stringify(at), ctx.clock.now().toISOString());
      await dropWalkTransactionsUpTo(trx, BigInt(at.lt));
    });
    unsaved = 0;
  };
  for (const row of rows) {
    if (lease && !lease.held()) throw new LeaseLost(CHAIN_LEASE);
    const item = { lt: BigInt(row.lt), hash: row.hash };
    const outcome = await processIsolated(ctx, live, item, row.boc, stuck);
    if (outcome === 'retry') {
      await saveCursor();
      return 0; // tried again next round, before anything newer
    }
    processed = { lt: item.lt.toString(), hash: item.hash };
    unsaved += 1;
    // A transaction given up on is passed at once, so it is never counted twice.
    if (stuck || outcome === 'skipped' || unsaved >= CURSOR_EVERY) await saveCursor();
    stuck = null;
  }
  await saveCursor();
  if (rows.length === MAX_PROCESSED_PER_ROUND) return rows.length; // more kept: the next round goes on
  // Everything the chain had when the walk started is processed; the next round starts a new walk.
  await inTransaction(ctx.db, async (trx) => {
    await lease?.fence(trx);
    await writeChainState(trx, SYNCED_KEY, String(walk.startedAt), ctx.clock.now().toISOString());
    await endWalk(trx);
  });
  return rows.length;
}

/**
 * Processes one transaction; a failure never escapes. It is tried again on the next rounds
 * ('retry': the round stops here, so order is kept) until MAX_TX_ATTEMPTS, then skipped: kept
 * for the operator and counted on GET /admin/chain ('skipped': the cursor moves past it).
 * A failure to record the failure (the database is down) does escape: nothing moves then.
 */
async function processIsolated(
  ctx: DomainContext,
  live: LiveChain,
  item: { lt: bigint; hash: string },
  boc: string,
  stuck: StuckTransaction | null,
): Promise<'done' | 'skipped' | 'retry'> {
  let tx: Transaction | undefined;
  try {
    tx = loadTransaction(Cell.fromBase64(boc).beginParse());
    await processTransaction(ctx, live, { ...item, tx });
  } catch (error) {
    const now = ctx.clock.now().toISOString();
    const ref = { txHash: item.hash, lt: item.lt.toString() };
    const attempts = await recordFailure(ctx.db, ref, error, now);
    if (attempts < MAX_TX_ATTEMPTS) return 'retry';
    let why = error;
    try {
      if (tx) await keepNotCredited(ctx, live, { ...item, tx });
    } catch (keepError) {
      // Even keeping it failed: the hash and both errors stay on GET /admin/chain.
      why = new Error(
        `${errorMessage(error)}; keeping it for the operator failed too: ${errorMessage(keepError)}`,
      );
    }
    await recordSkipped(ctx.db, ref, why, now);
    return 'skipped';
  }
  if (stuck) await clearStuck(ctx.db);
  return 'done';
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function processTransaction(
  ctx: DomainContext,
  live: LiveChain,
  item: ChainTransaction,
): Promise<void> {
  const { tx } = item;
  const inMsg = tx.inMessage;
  if (!inMsg) return;
  if (inMsg.info.type === 'external-in') {
    const hash = beginCell().store(storeMessage(inMsg)).endCell().hash().toString('hex');
    const batch = await findBatchByMessageHash(ctx.db, hash);
    if (batch) await markBatchLanded(ctx.db, batch.id, ctx.clock.now().toISOString());
    return;
  }
  if (inMsg.info.type !== 'internal') return;
  if (inMsg.info.src.equals(live.wallet.address)) {
    const seq = readBatchSeq(inMsg.body);
    if (seq !== null) await confirmBatch(ctx, live, seq, item);
    return;
  }
  await recordDeposit(ctx, live, item);
}

async function confirmBatch(ctx: DomainContext, live: LiveChain, seq: number, item: ChainTransaction) {
  const batch = await findBatchBySeq(ctx.db, seq);
  if (!batch) return;
  const sentOut = outgoingTransfers(item.tx);
  const jettonsOut = outgoingJettonTransfers(item.tx);
  await inTransaction(ctx.db, async (trx) => {
    const now = ctx.clock.now().toISOString();
    await markBatchLanded(trx, batch.id, now, item.hash);
    const skipped: string[] = [];
    for (const t of await listBatchTransfers(trx, batch.id)) {
      if (t.status !== 'pending') continue;
      if (t.currency === 'USDT') {
        // A jetton transfer is the out-message whose transfer body carries its query id. That it
        // left the hot wallet is not a payout yet: the jetton wallets say so, a few transactions
        // later (jettonConfirmations.ts searches them from this transaction's lt).
        if (jettonsOut.has(jettonQueryId(t.txn_id)))
          await markJettonSent(trx, t.txn_id, batch.id, { lt: item.lt, txHash: item.hash }, now);
        else skipped.push(t.txn_id);
        continue;
      }
      const key = transferKey(Address.parse(t.to_address), t.amount_nano, t.comment);
      const index = sentOut.findIndex((o) => o.key === key);
      if (index < 0) {
        skipped.push(t.txn_id);
        continue;
      }
      const [out] = sentOut.splice(index, 1); // each out-message confirms one transfer only
      await setChainTxHash(trx, t.txn_id, item.hash);
      await confirmTransfer(ctx, trx, t.txn_id, t.to_address, {
        // A batch's transfers share the wallet transaction; each has its own out-message.
        txHash: out!.messageHash,
        fromAddress: formatAddress(live.wallet.address, ctx.chain.network),
        toAddress: t.to_address,
      });
    }
    // The wallet skipped these (their actions failed): this batch can never send them now.
    if (skipped.length > 0) await detachTransfers(trx, batch.id, skipped, now);
  });
}

function transferKey(to: Address, amountNano: bigint, comment: string): string {
  return `${to.toRawString()}|${amountNano}|${comment}`;
}

/**
 * The query ids of the jetton transfers a committed transaction sent. Only our signed batches
 * make the hot wallet send anything, and a query id is a hash of our transfer id, so the body
 * alone names the transfer (its destination, the hot jetton wallet, is what we signed).
 */
function outgoingJettonTransfers(tx: Transaction): Set<bigint> {
  const d = tx.description;
  const ids = new Set<bigint>();
  if (d.type !== 'generic' || d.aborted) return ids;
  for (const message of tx.outMessages.values()) {
    if (message.info.type !== 'internal') continue;
    const request = readTransferRequest(message.body);
    if (request) ids.add(request.queryId);
  }
  return ids;
}

/** The TON transfers a committed transaction sent, each with its out-message's hash. */
function outgoingTransfers(tx: Transaction): { key: string; messageHash: string }[] {
  const d = tx.description;
  if (d.type !== 'generic' || d.aborted) return [];
  const out: { key: string; messageHash: string }[] = [];
  for (const message of tx.outMessages.values()) {
    if (message.info.type !== 'internal') continue;
    if (readTransferRequest(message.body)) continue; // a jetton transfer, never a TON payout
    out.push({
      key: transferKey(message.info.dest, message.info.value.coins, readTextComment(message.body)),
      messageHash: beginCell().store(storeMessage(message)).endCell().hash().toString('hex'),
    });
  }
  return out;
}

/** What an incoming transfer from someone else brought, or null when it kept nothing. */
function incomingValue(live: LiveChain, item: ChainTransaction) {
  const inMsg = item.tx.inMessage;
  if (inMsg?.info.type !== 'internal' || inMsg.info.src.equals(live.wallet.address)) return null;
  const { src, value, bounced } = inMsg.info;
  if (bounced || value.coins <= 0n || item.tx.description.type !== 'generic') return null;
  // A transaction that bounced the value back kept nothing. (An uninitialized wallet's
  // transaction is "aborted" with its compute phase skipped, yet it keeps the value.)
  for (const out of item.tx.outMessages.values())
    if (out.info.type === 'internal' && out.info.bounced) return null;
  return { from: src, amountNano: value.coins, body: inMsg.body };
}

/** The memo a body carries as the watcher matches it, and whether its comment was unreadable. */
function memoOf(body: Cell): { memo: string; unreadable: boolean } {
  const reading = readComment(body);
  return {
    memo: reading.kind === 'text' ? cleanMemo(reading.text) : '',
    unreadable: reading.kind === 'unreadable',
  };
}

async function recordDeposit(ctx: DomainContext, live: LiveChain, item: ChainTransaction) {
  // USDT on: jetton notifications and our payouts' excesses are booked by the jetton rules.
  if (await recordJettonTraffic(ctx, live, item, (i) => incomingValue(live, i))) return;
  const incoming = incomingValue(live, item);
  if (!incoming) return;
  const { memo, unreadable } = memoOf(incoming.body);
  // Only a memo shaped like an agent id is looked up: no stranger's text reaches the query.
  const agent = isIdOf('agent', memo) ? await findAgent(ctx.db, memo) : undefined;
  if (agent && incoming.amountNano >= MIN_DEPOSIT_NANO) {
    await creditChainDeposit(ctx, agent.id, {
      txHash: item.hash,
      fromAddress: formatAddress(incoming.from, ctx.chain.network),
      toAddress: formatAddress(live.wallet.address, ctx.chain.network),
      amountNano: incoming.amountNano,
    });
    return;
  }
  const reason = agent ? 'below_minimum' : unreadable ? 'unreadable_memo' : 'unknown_memo';
  await keepUnmatched(ctx, item, incoming, memo, reason);
}

/** A transfer the follower gave up on (MAX_TX_ATTEMPTS failures) waits for the operator. */
async function keepNotCredited(ctx: DomainContext, live: LiveChain, item: ChainTransaction) {
  if (await keepJettonNotCredited(ctx, live, item, (i) => incomingValue(live, i))) return;
  const incoming = incomingValue(live, item);
  if (incoming) await keepUnmatched(ctx, item, incoming, memoOf(incoming.body).memo, 'not_credited');
}

async function keepUnmatched(
  ctx: DomainContext,
  item: ChainTransaction,
  incoming: { from: Address; amountNano: bigint },
  memo: string,
  reason: UnmatchedDepositRow['reason'],
) {
  await insertUnmatchedDeposit(ctx.db, {
    tx_hash: item.hash,
    lt: item.lt.toString(),
    from_address: formatAddress(incoming.from, ctx.chain.network),
    amount_nano: incoming.amountNano,
    memo: clipText(memo, MAX_STORED_MEMO),
    reason,
    status: 'open',
    agent_id: null,
    resolved_at: null,
    created_at: ctx.clock.now().toISOString(),
  });
}
