import { Address, beginCell, type Cell, storeMessage, type Transaction } from '@ton/core';
import { formatAddress } from '../chain/address.js';
import { readBatchSeq } from '../chain/highloadWallet.js';
import type { LiveChain } from '../chain/liveChain.js';
import { readTextComment } from '../chain/sandboxTx.js';
import type { ChainTransaction } from '../chain/toncenterClient.js';
import { findAgent } from '../db/repositories/agents.js';
import {
  detachTransfers,
  findBatchByMessageHash,
  findBatchBySeq,
  listBatchTransfers,
  markBatchLanded,
  setChainTxHash,
} from '../db/repositories/chainBatches.js';
import { readChainState, writeChainState } from '../db/repositories/chainState.js';
import { insertUnmatchedDeposit } from '../db/repositories/unmatchedDeposits.js';
import { creditChainDeposit, MIN_DEPOSIT_NANO } from './agents.js';
import { SYNCED_KEY } from './chainSender.js';
import type { DomainContext } from './context.js';
import { confirmTransfer } from './payouts.js';
import { clipText } from './text.js';
import { inTransaction } from './transaction.js';

/**
 * Network mode: follows the hot wallet's transactions (it is also the deposit address) with a
 * persisted (lt, hash) cursor and acts on each committed transaction once, oldest first:
 * - the external message of a batch marks the batch landed (so it is never re-issued);
 * - the wallet's internal_transfer transaction confirms each transfer whose out-message it shows
 *   (with that transaction's hash), and releases those it skipped (e.g. no funds) to a new batch;
 * - an incoming transfer from anyone else is a deposit: credited to the agent named by its memo
 *   (once per transaction hash), or kept for the operator when the memo matches nobody.
 */
export const CURSOR_KEY = 'wallet_cursor';
const PAGE = 30;
/** At most this many pages per round; the rest waits for the next round. */
const MAX_PAGES = 40;

interface Cursor {
  lt: string;
  hash: string;
}

/** One round: read what is new since the cursor and process it; returns how many transactions. */
export async function followWallet(ctx: DomainContext, live: LiveChain): Promise<number> {
  const roundStartedAt = live.nowSeconds();
  const raw = await readChainState(ctx.db, CURSOR_KEY);
  const cursor = raw ? (JSON.parse(raw) as Cursor) : null;
  const fresh = await readNewTransactions(live, cursor);
  if (fresh === null) return 0; // not met within this round's pages: an error was recorded
  for (const item of fresh) {
    await processTransaction(ctx, live, item);
    const next: Cursor = { lt: item.lt.toString(), hash: item.hash };
    await writeChainState(ctx.db, CURSOR_KEY, JSON.stringify(next), ctx.clock.now().toISOString());
  }
  // Everything the chain had when the round started is processed.
  await writeChainState(ctx.db, SYNCED_KEY, String(roundStartedAt), ctx.clock.now().toISOString());
  return fresh.length;
}

/** Transactions newer than the cursor, oldest first, each once (providers may repeat a page). */
async function readNewTransactions(
  live: LiveChain,
  cursor: Cursor | null,
): Promise<ChainTransaction[] | null> {
  const seen = new Map<string, ChainTransaction>();
  let from: { lt: bigint; hash: string } | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const txs = await live.client.getTransactions(live.wallet.address, PAGE, from);
    let reachedCursor = false;
    for (const t of txs) {
      if (cursor && (t.lt < BigInt(cursor.lt) || (t.lt === BigInt(cursor.lt) && t.hash === cursor.hash))) {
        reachedCursor = true;
        continue;
      }
      seen.set(t.hash, t);
    }
    const oldest = txs.at(-1);
    const endOfHistory = txs.length < PAGE || !oldest || (from && oldest.lt === from.lt && txs.length === 1);
    if (reachedCursor || endOfHistory) {
      return [...seen.values()].sort((a, b) => (a.lt < b.lt ? -1 : a.lt > b.lt ? 1 : 0));
    }
    // The next page starts at the oldest of this one (inclusive); the map drops the repeat.
    from = { lt: oldest.lt, hash: oldest.hash };
  }
  live.client.lastError = {
    message: `the wallet follower did not reach its cursor within ${MAX_PAGES} pages`,
    at: new Date().toISOString(),
  };
  return null;
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
  const from = inMsg.info.src;
  if (from.equals(live.wallet.address)) {
    const seq = readBatchSeq(inMsg.body);
    if (seq !== null) await confirmBatch(ctx, live, seq, item);
    return;
  }
  await recordDeposit(ctx, live, item, from, inMsg.info.value.coins, inMsg.info.bounced, inMsg.body);
}

async function confirmBatch(ctx: DomainContext, live: LiveChain, seq: number, item: ChainTransaction) {
  const batch = await findBatchBySeq(ctx.db, seq);
  if (!batch) return;
  const sentOut = outgoingTransfers(item.tx);
  await inTransaction(ctx.db, async (trx) => {
    const now = ctx.clock.now().toISOString();
    await markBatchLanded(trx, batch.id, now, item.hash);
    const skipped: string[] = [];
    for (const t of await listBatchTransfers(trx, batch.id)) {
      if (t.status !== 'pending') continue;
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

/** The transfers a committed transaction sent, each with its out-message's hash. */
function outgoingTransfers(tx: Transaction): { key: string; messageHash: string }[] {
  const d = tx.description;
  if (d.type !== 'generic' || d.aborted) return [];
  const out: { key: string; messageHash: string }[] = [];
  for (const message of tx.outMessages.values()) {
    if (message.info.type !== 'internal') continue;
    out.push({
      key: transferKey(message.info.dest, message.info.value.coins, readTextComment(message.body)),
      messageHash: beginCell().store(storeMessage(message)).endCell().hash().toString('hex'),
    });
  }
  return out;
}

async function recordDeposit(
  ctx: DomainContext,
  live: LiveChain,
  item: ChainTransaction,
  from: Address,
  amountNano: bigint,
  bounced: boolean,
  body: Cell,
) {
  if (bounced || amountNano <= 0n || item.tx.description.type !== 'generic') return;
  // A transaction that bounced the value back kept nothing. (An uninitialized wallet's
  // transaction is "aborted" with its compute phase skipped, yet it keeps the value.)
  for (const out of item.tx.outMessages.values())
    if (out.info.type === 'internal' && out.info.bounced) return;
  const memo = readTextComment(body).trim();
  const deposit = {
    txHash: item.hash,
    fromAddress: formatAddress(from, ctx.chain.network),
    toAddress: formatAddress(live.wallet.address, ctx.chain.network),
    amountNano,
  };
  const agent = memo ? await findAgent(ctx.db, memo) : undefined;
  if (agent && amountNano >= MIN_DEPOSIT_NANO) {
    await creditChainDeposit(ctx, agent.id, deposit);
    return;
  }
  await insertUnmatchedDeposit(ctx.db, {
    tx_hash: item.hash,
    lt: item.lt.toString(),
    from_address: deposit.fromAddress,
    amount_nano: amountNano,
    memo: clipText(memo, 200),
    reason: agent ? 'below_minimum' : 'unknown_memo',
    status: 'open',
    agent_id: null,
    resolved_at: null,
    created_at: ctx.clock.now().toISOString(),
  });
}
