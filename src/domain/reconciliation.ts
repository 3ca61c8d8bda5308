import { Address, beginCell, storeMessage } from '@ton/core';
import type { LiveChain } from '../chain/liveChain.js';
import { readTextComment } from '../chain/sandboxTx.js';
import type { ChainTransaction } from '../chain/toncenterClient.js';
import type { DomainContext } from './context.js';
import { conflict } from './errors.js';

/** At most this many pages of the wallet's history per reconciliation (100 transactions each). */
const MAX_PAGES = 1_000;
const PAGE = 100;

export interface Difference {
  kind: 'missing' | 'duplicated' | 'amount' | 'address' | 'unrecorded';
  ledgerId: string | null;
  txHash: string | null;
  detail: string;
}

interface ChainOut {
  to: Address;
  amountNano: bigint;
  comment: string;
}

/**
 * Compares every ledger row that claims a chain transfer with what the hot wallet's history shows:
 * a deposit by its transaction hash, a payout or fee by its out-message hash. Reports rows the
 * chain does not show, different amounts or addresses, transfers the chain shows more than once
 * (the same transfer's comment on two out-messages), and transfers of ours the ledger does not know.
 */
export async function reconcile(ctx: DomainContext) {
  const live = ctx.chain.live;
  if (!live) {
    throw conflict(
      'Reconciliation reads the chain’s history, which the in-process sandbox does not keep; it runs with TON_NETWORK=testnet or mainnet',
    );
  }
  const history = await readHistory(live);
  const incoming = new Map<string, { amountNano: bigint }>();
  const outgoing = new Map<string, ChainOut>();
  const commentCount = new Map<string, number>();
  for (const { tx, hash } of history) {
    const inMsg = tx.inMessage;
    const aborted = tx.description.type !== 'generic' || tx.description.aborted;
    if (inMsg?.info.type === 'internal' && !inMsg.info.src.equals(live.wallet.address)) {
      incoming.set(hash, { amountNano: inMsg.info.value.coins });
    }
    if (aborted) continue;
    for (const out of tx.outMessages.values()) {
      if (out.info.type !== 'internal' || out.info.dest.equals(live.wallet.address)) continue;
      const messageHash = beginCell().store(storeMessage(out)).endCell().hash().toString('hex');
      const comment = readTextComment(out.body);
      outgoing.set(messageHash, { to: out.info.dest, amountNano: out.info.value.coins, comment });
      commentCount.set(comment, (commentCount.get(comment) ?? 0) + 1);
    }
  }

  const differences: Difference[] = [];
  const rows = await ctx.db
    .selectFrom('transactions')
    .leftJoin('chain_transfers', 'chain_transfers.txn_id', 'transactions.id')
    .select([
      'transactions.id',
      'transactions.type',
      'transactions.amount_nano',
      'transactions.to_address',
      'transactions.tx_hash',
      'chain_transfers.comment',
    ])
    .where('transactions.status', '=', 'confirmed')
    .where('transactions.type', 'in', ['DEPOSIT', 'PAYOUT', 'FEE'])
    .where('transactions.tx_hash', 'is not', null)
    .execute();
  const known = new Set<string>();
  for (const row of rows) {
    const hash = row.tx_hash!;
    known.add(hash);
    if (row.type === 'DEPOSIT') {
      const chain = incoming.get(hash);
      if (!chain)
        differences.push({ kind: 'missing', ledgerId: row.id, txHash: hash, detail: 'deposit not on chain' });
      else if (chain.amountNano !== row.amount_nano) {
        differences.push(amountDiff(row.id, hash, row.amount_nano, chain.amountNano));
      }
      continue;
    }
    const chain = outgoing.get(hash);
    if (!chain) {
      differences.push({
        kind: 'missing',
        ledgerId: row.id,
        txHash: hash,
        detail: `${row.type} not on chain`,
      });
      continue;
    }
    if (chain.amountNano !== row.amount_nano)
      differences.push(amountDiff(row.id, hash, row.amount_nano, chain.amountNano));
    if (row.to_address && !Address.parse(row.to_address).equals(chain.to)) {
      differences.push({
        kind: 'address',
        ledgerId: row.id,
        txHash: hash,
        detail: `ledger ${row.to_address}, chain ${chain.to.toString()}`,
      });
    }
    if (row.comment && (commentCount.get(row.comment) ?? 0) > 1) {
      differences.push({
        kind: 'duplicated',
        ledgerId: row.id,
        txHash: hash,
        detail: `the chain shows ${commentCount.get(row.comment)} transfers "${row.comment}"`,
      });
    }
  }
  for (const [hash, out] of outgoing) {
    if (!known.has(hash) && out.comment.startsWith('Handoff ')) {
      differences.push({
        kind: 'unrecorded',
        ledgerId: null,
        txHash: hash,
        detail: `${out.amountNano} nanoton to ${out.to.toString()} ("${out.comment}") is in no confirmed ledger row`,
      });
    }
  }
  return {
    network: ctx.chain.network,
    checkedRows: rows.length,
    chainTransactions: history.length,
    ok: differences.length === 0,
    differences,
  };
}

function amountDiff(ledgerId: string, txHash: string, ledgerNano: bigint, chainNano: bigint): Difference {
  return {
    kind: 'amount',
    ledgerId,
    txHash,
    detail: `ledger ${ledgerNano} nanoton, chain ${chainNano} nanoton`,
  };
}

/** The wallet's whole history, newest first, each transaction once. */
async function readHistory(live: LiveChain): Promise<ChainTransaction[]> {
  const seen = new Map<string, ChainTransaction>();
  let from: { lt: bigint; hash: string } | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const txs = await live.client.getTransactions(live.wallet.address, PAGE, from);
    const before = seen.size;
    for (const t of txs) seen.set(t.hash, t);
    const oldest = txs.at(-1);
    if (!oldest || txs.length < PAGE || seen.size === before) return [...seen.values()];
    from = { lt: oldest.lt, hash: oldest.hash };
  }
  throw conflict(
    `The wallet's history is longer than ${MAX_PAGES * PAGE} transactions; reconcile in parts (not supported yet)`,
  );
}
