import { Address } from '@ton/core';
import type { LiveChain } from '../../chain/liveChain.js';
import type { ChainTransaction } from '../../chain/toncenterClient.js';
import { readChainState } from '../../db/repositories/chainState.js';
import {
  listAllUnmatchedDeposits,
  listChainLedgerRows,
  listUncreditedReasons,
} from '../../db/repositories/reconciliationRows.js';
import type { DomainContext } from '../context.js';
import { conflict } from '../errors.js';
import { formatAmount } from '../money/currency.js';
import { CHAIN_OUT_TYPES } from '../money/transactions.js';
import { CURSOR_KEY } from './chainFollower.js';
import { usdtInTonTraffic } from './usdtChainHistory.js';
import { type IncomingTransfer, type OutgoingTransfer, walletTransfers } from './walletTransfers.js';

/** At most this many pages of the wallet's history per reconciliation (100 transactions each). */
const MAX_PAGES = 1_000;
const PAGE = 100;
/**
 * A payout or fee still pending after this long is listed: a transfer normally lands within a
 * minute, and its retries back off to at most every 10 minutes, so an hour means it is stuck
 * (an empty hot wallet, a refused address, a provider down) and someone should look.
 */
export const STALE_PENDING_AFTER_SECONDS = 3600;
/** Comments (anyone's text) are shown at most this long in a difference's detail. */
const MAX_COMMENT_SHOWN = 100;

export interface Difference {
  kind:
    | 'missing'
    | 'duplicated'
    | 'amount'
    | 'address'
    | 'unbooked'
    | 'double_booked'
    | 'foreign_outgoing'
    | 'unconfirmed'
    | 'stale_pending';
  ledgerId: string | null;
  txHash: string | null;
  detail: string;
}

type LedgerRow = Awaited<ReturnType<typeof listChainLedgerRows>>[number];

/**
 * What the jetton chain layer gives USDT reconciliation (networkUsdtHistory, passed by the
 * /admin/reconciliation route, src/http/routes/chain.ts, which the CLI calls). `incoming`: USDT transfers that reached
 * the deposit address's jetton wallet of the configured master, by the transaction hash the
 * DEPOSIT rows keep; `outgoing`: jetton transfers out of the hot wallet's jetton wallet, by the
 * hash the PAYOUT and FEE rows keep; amounts in micro-USDT; `processedThroughLt`: how far the
 * watcher has processed. With them the USDT books are checked exactly as TON's are. Network mode:
 * networkUsdtHistory (usdtChainHistory.ts).
 */
export interface UsdtChainHistory {
  read(
    /** The hot wallet's history, as TON reconciliation read it (USDT notifications come to it). */
    hotHistory: ChainTransaction[],
    /** Reads another account's whole history (the hot jetton wallet's). */
    readAccount: (address: Address) => Promise<ChainTransaction[]>,
    /** The hot wallet watcher's cursor: it books USDT deposits as it books TON ones. */
    processedThroughLt: bigint | null,
  ): Promise<{
    incoming: Map<string, IncomingTransfer>;
    outgoing: Map<string, OutgoingTransfer>;
    processedThroughLt: bigint | null;
  }>;
}

/**
 * USDT's side of the report: compared with the chain when the jetton layer provides its history;
 * without one (USDT is not enabled: the gateway has no jetton) the books alone with the state
 * `chain_side_not_available` (no numbers are made up for the chain, and `ok` is null: nothing was
 * compared; a service that never took USDT lists empty books).
 */
export async function reconcileUsdt(
  ctx: DomainContext,
  chain: UsdtChainHistory | null,
  /** What TON reconciliation read (needed only when `chain` is given). */
  from?: {
    hotHistory: ChainTransaction[];
    readAccount: (address: Address) => Promise<ChainTransaction[]>;
    processedThroughLt: bigint | null;
    unmatched: UnmatchedRow[];
    uncredited: Map<string, string>;
  },
) {
  const rows = await listChainLedgerRows(ctx.db, 'USDT');
  const books = usdtBooks(rows);
  if (!chain || !from) {
    return {
      currency: 'USDT' as const,
      state: 'chain_side_not_available' as const,
      detail:
        'USDT is not enabled (no USDT jetton master): the USDT books are listed, not compared with the chain',
      books,
      ok: null,
      differences: stalePending(rows, ctx.clock.now(), USDT_UNIT),
    };
  }
  const history = await chain.read(from.hotHistory, from.readAccount, from.processedThroughLt);
  const processed = (lt: bigint) => history.processedThroughLt !== null && lt <= history.processedThroughLt;
  const unmatched = from.unmatched.filter((u) => u.currency === 'USDT');
  const differences = [
    ...checkIncoming(rows, unmatched, from.uncredited, history.incoming, processed, USDT_UNIT),
    ...checkOutgoing(rows, history.outgoing, processed, USDT_UNIT),
    ...stalePending(rows, ctx.clock.now(), USDT_UNIT),
  ];
  return {
    currency: 'USDT' as const,
    state: 'compared' as const,
    books,
    ok: differences.length === 0,
    differences,
  };
}

/** The USDT ledger rows that move USDT on chain, counted and summed per type (micro-USDT). */
function usdtBooks(rows: LedgerRow[]) {
  const sum = (type: string, status?: string) => {
    const of = rows.filter((r) => r.type === type && (status === undefined || r.status === status));
    return {
      count: of.length,
      total: formatAmount(
        'USDT',
        of.reduce((s, r) => s + r.amount_nano, 0n),
      ),
    };
  };
  return {
    deposits: sum('DEPOSIT'),
    payoutsConfirmed: sum('PAYOUT', 'confirmed'),
    payoutsPending: sum('PAYOUT', 'pending'),
    feesConfirmed: sum('FEE', 'confirmed'),
    feesPending: sum('FEE', 'pending'),
    bonusesConfirmed: sum('BONUS', 'confirmed'),
    bonusesPending: sum('BONUS', 'pending'),
    bonusFeesConfirmed: sum('BONUS_FEE', 'confirmed'),
    bonusFeesPending: sum('BONUS_FEE', 'pending'),
  };
}
type UnmatchedRow = Awaited<ReturnType<typeof listAllUnmatchedDeposits>>[number];

/**
 * Compares the books with the hot wallet's whole history (it is also the deposit address):
 * - every incoming transfer the watcher has processed is booked exactly once: one DEPOSIT row or
 *   one unmatched deposit (an assigned one together with its agent's DEPOSIT row), never both,
 *   never neither; and every DEPOSIT row and unmatched deposit is such a transfer, of its amount;
 * - every transfer out of the wallet is a PAYOUT or FEE row of ours (by its out-message hash, or
 *   a pending row's transfer the watcher has not reached yet), whatever its comment; anything
 *   else is foreign: someone else holds the wallet's key, or the books lost a row;
 * - confirmed payouts and fees show on chain once, with their amount and address;
 * - pending rows older than STALE_PENDING_AFTER_SECONDS are listed.
 */
export async function reconcile(ctx: DomainContext, usdtChain: UsdtChainHistory | null = null) {
  const live = ctx.chain.live;
  if (!live) {
    throw conflict(
      'Reconciliation reads the chain’s history, which the in-process sandbox does not keep; it runs with TON_NETWORK=testnet or mainnet',
    );
  }
  const history = await readHistory(live, live.wallet.address);
  // USDT on: our jetton wallet's notifications and our excesses are no TON deposit of anyone's.
  const usdtTraffic = await usdtInTonTraffic(ctx, history);
  const { incoming, outgoing } = walletTransfers(
    history.filter((h) => !usdtTraffic.incoming.has(h.hash)),
    live.wallet.address,
  );
  // Our jetton payouts' messages to our jetton wallet carry their gas, not a TON payout.
  const jettonWallet = usdtTraffic.jettonWallet;
  if (jettonWallet)
    for (const [hash, out] of outgoing) if (out.to.equals(jettonWallet)) outgoing.delete(hash);
  const processedLt = await processedThroughLt(ctx);
  const processed = (lt: bigint) => processedLt !== null && lt <= processedLt;
  const rows = await listChainLedgerRows(ctx.db, 'TON');
  const unmatched = await listAllUnmatchedDeposits(ctx.db);
  // A foreign jetton notification that kept no TON is listed for what it claimed, not as TON.
  const unmatchedTon = unmatched.filter(
    (u) => u.currency === 'TON' && !(u.reason === 'foreign_jetton' && u.amount_nano === 0n),
  );
  const uncredited = new Map((await listUncreditedReasons(ctx.db)).map((u) => [u.tx_hash, u.reason]));

  const differences = [
    ...checkIncoming(rows, unmatchedTon, uncredited, incoming, processed, TON_UNIT),
    ...checkOutgoing(rows, outgoing, processed, TON_UNIT),
    ...stalePending(rows, ctx.clock.now(), TON_UNIT),
  ];
  const usdt = await reconcileUsdt(ctx, usdtChain, {
    hotHistory: history,
    readAccount: (address) => readHistory(live, address),
    processedThroughLt: processedLt,
    unmatched,
    uncredited,
  });
  return {
    network: ctx.chain.network,
    checkedRows: rows.filter((r) => r.type === 'DEPOSIT' || isChainOut(r.type)).length,
    checkedUnmatched: unmatchedTon.length,
    chainTransactions: history.length,
    /** Transactions up to this lt are processed by the watcher; later ones need not be booked yet. */
    processedThroughLt: processedLt?.toString() ?? null,
    unprocessedTransactions: history.filter((h) => !processed(h.lt)).length,
    stalePendingAfterSeconds: STALE_PENDING_AFTER_SECONDS,
    // `ok` and `differences` are TON's (the hot wallet's history) and USDT's when compared.
    ok: differences.length === 0 && usdt.ok !== false,
    differences,
    currencies: {
      TON: {
        currency: 'TON' as const,
        state: 'compared' as const,
        ok: differences.length === 0,
        differences,
      },
      USDT: usdt,
    },
  };
}

/** The lt of the newest transaction the watcher has processed (its cursor), or null. */
async function processedThroughLt(ctx: DomainContext): Promise<bigint | null> {
  const raw = await readChainState(ctx.db, CURSOR_KEY);
  return raw ? BigInt((JSON.parse(raw) as { lt: string }).lt) : null;
}

function checkIncoming(
  rows: LedgerRow[],
  unmatched: UnmatchedRow[],
  uncredited: Map<string, string>,
  incoming: Map<string, IncomingTransfer>,
  processed: (lt: bigint) => boolean,
  unit: string,
): Difference[] {
  const differences: Difference[] = [];
  const credits = new Map<string, LedgerRow>();
  for (const row of rows) {
    if (row.type !== 'DEPOSIT') continue;
    if (!row.tx_hash) {
      differences.push(diff('missing', row.id, null, 'a confirmed deposit without a chain transaction'));
      continue;
    }
    credits.set(row.tx_hash, row);
    const chain = incoming.get(row.tx_hash);
    if (!chain) differences.push(diff('missing', row.id, row.tx_hash, 'deposit not on chain'));
    else if (chain.amountNano !== row.amount_nano)
      differences.push(amountDiff(row.id, row.tx_hash, row.amount_nano, chain.amountNano, unit));
  }
  const kept = new Set<string>();
  for (const u of unmatched) {
    kept.add(u.tx_hash);
    const chain = incoming.get(u.tx_hash);
    if (!chain)
      differences.push(diff('missing', null, u.tx_hash, `unmatched deposit (${u.status}) not on chain`));
    else if (chain.amountNano !== u.amount_nano)
      differences.push(amountDiff(null, u.tx_hash, u.amount_nano, chain.amountNano, unit));
    const credit = credits.get(u.tx_hash);
    if (u.status === 'assigned') {
      if (!credit)
        differences.push(
          diff('unbooked', null, u.tx_hash, `assigned to ${u.agent_id} but no DEPOSIT row credits it`),
        );
      else if (credit.agent_id !== u.agent_id)
        differences.push(
          diff(
            'double_booked',
            credit.id,
            u.tx_hash,
            `assigned to ${u.agent_id} but credited to ${credit.agent_id}`,
          ),
        );
    } else if (credit) {
      differences.push(
        diff(
          'double_booked',
          credit.id,
          u.tx_hash,
          `credited to ${credit.agent_id} and also an unmatched deposit (${u.status})`,
        ),
      );
    }
  }
  for (const [hash, chain] of incoming) {
    if (!processed(chain.lt) || credits.has(hash) || kept.has(hash)) continue;
    const reason = uncredited.get(hash);
    differences.push(
      diff(
        'unbooked',
        null,
        hash,
        `${chain.amountNano} ${unit} from ${chain.from.toString()} (lt ${chain.lt}) is in no DEPOSIT row and no unmatched deposit${reason ? `; recorded as uncredited: ${reason}` : ''}`,
      ),
    );
  }
  return differences;
}

function checkOutgoing(
  rows: LedgerRow[],
  outgoing: Map<string, OutgoingTransfer>,
  processed: (lt: bigint) => boolean,
  unit: string,
): Difference[] {
  const differences: Difference[] = [];
  const sent = new Set<string>();
  const commentCount = new Map<string, number>();
  for (const out of outgoing.values())
    commentCount.set(out.comment, (commentCount.get(out.comment) ?? 0) + 1);
  // Pending rows by the transfer they mean to send: each may account for one out-message.
  const pending = new Map<string, LedgerRow[]>();
  for (const row of rows) {
    if (!isChainOut(row.type)) continue;
    if (row.status === 'pending') {
      if (row.transfer_to && row.comment !== null) {
        const key = transferKey(Address.parse(row.transfer_to), row.amount_nano, row.comment);
        pending.set(key, [...(pending.get(key) ?? []), row]);
      }
      continue;
    }
    if (!row.tx_hash) {
      differences.push(diff('missing', row.id, null, `a confirmed ${row.type} without a chain transaction`));
      continue;
    }
    sent.add(row.tx_hash);
    const chain = outgoing.get(row.tx_hash);
    if (!chain) {
      differences.push(diff('missing', row.id, row.tx_hash, `${row.type} not on chain`));
      continue;
    }
    if (chain.amountNano !== row.amount_nano)
      differences.push(amountDiff(row.id, row.tx_hash, row.amount_nano, chain.amountNano, unit));
    if (row.to_address && !Address.parse(row.to_address).equals(chain.to)) {
      differences.push(
        diff('address', row.id, row.tx_hash, `ledger ${row.to_address}, chain ${chain.to.toString()}`),
      );
    }
    const times = row.comment ? (commentCount.get(row.comment) ?? 0) : 0;
    if (times > 1) {
      differences.push(
        diff('duplicated', row.id, row.tx_hash, `the chain shows ${times} transfers "${row.comment}"`),
      );
    }
  }
  for (const [hash, out] of outgoing) {
    if (sent.has(hash)) continue;
    const row = pending.get(transferKey(out.to, out.amountNano, out.comment))?.shift();
    if (row) {
      // Sent and not yet confirmed is normal until the watcher reaches it.
      if (processed(out.lt))
        differences.push(
          diff('unconfirmed', row.id, hash, `on chain (lt ${out.lt}) but the ledger row is still pending`),
        );
      continue;
    }
    differences.push(
      diff(
        'foreign_outgoing',
        null,
        hash,
        `${out.amountNano} ${unit} to ${out.to.toString()} (lt ${out.lt}, comment ${JSON.stringify(out.comment.slice(0, MAX_COMMENT_SHOWN))}) was sent by no ledger row: if nobody here sent it, someone else holds the hot wallet's key`,
      ),
    );
  }
  return differences;
}

function stalePending(rows: LedgerRow[], now: Date, unit: string): Difference[] {
  const differences: Difference[] = [];
  for (const row of rows) {
    if (row.status !== 'pending') continue;
    const ageSec = Math.floor((now.getTime() - Date.parse(row.created_at)) / 1000);
    if (ageSec <= STALE_PENDING_AFTER_SECONDS) continue;
    const transfer = row.transfer_status
      ? `transfer ${row.transfer_status}, ${row.attempts} attempts${row.last_error ? `, last error: ${row.last_error}` : ''}`
      : 'no chain transfer queued';
    differences.push(
      diff(
        'stale_pending',
        row.id,
        null,
        `${row.type} of ${row.amount_nano} ${unit} to ${row.to_address ?? 'nobody'} pending for ${Math.floor(ageSec / 60)} minutes (since ${row.created_at}); ${transfer}`,
      ),
    );
  }
  return differences;
}

function transferKey(to: Address, amountNano: bigint, comment: string): string {
  return `${to.toRawString()}|${amountNano}|${comment}`;
}

function diff(kind: Difference['kind'], ledgerId: string | null, txHash: string | null, detail: string) {
  return { kind, ledgerId, txHash, detail };
}

function amountDiff(
  ledgerId: string | null,
  txHash: string,
  booked: bigint,
  chain: bigint,
  unit: string,
): Difference {
  return diff('amount', ledgerId, txHash, `books ${booked} ${unit}, chain ${chain} ${unit}`);
}

/** The smallest unit each currency's amounts are shown in, in a difference's detail. */
const TON_UNIT = 'nanoton';
const USDT_UNIT = 'micro-USDT';

/** An account's whole history (the hot wallet's, its jetton wallet's), newest first, each once. */
async function readHistory(live: LiveChain, address: Address): Promise<ChainTransaction[]> {
  const seen = new Map<string, ChainTransaction>();
  let from: { lt: bigint; hash: string } | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const txs = await live.client.getTransactions(address, PAGE, from);
    const before = seen.size;
    for (const t of txs) seen.set(t.hash, t);
    const oldest = txs.at(-1);
    if (!oldest || txs.length < PAGE || seen.size === before) return [...seen.values()];
    from = { lt: oldest.lt, hash: oldest.hash };
  }
  throw conflict(
    `The history of ${address.toString()} is longer than ${MAX_PAGES * PAGE} transactions; reconcile in parts (not supported yet)`,
  );
}

/** A ledger row that leaves the hot wallet on chain: payouts, fees, bonuses and their fees. */
function isChainOut(type: string): boolean {
  return (CHAIN_OUT_TYPES as readonly string[]).includes(type);
}
