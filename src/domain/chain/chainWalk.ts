import type { LiveChain } from '../../chain/liveChain.js';
import type { ChainTransaction } from '../../chain/toncenterClient.js';
import { deleteChainState, readChainState, writeChainState } from '../../db/repositories/chainState.js';
import { keepWalkTransactions } from '../../db/repositories/chainWalk.js';
import type { DomainContext } from '../context.js';
import { inTransaction } from '../transaction.js';
import { CHAIN_LEASE, type LeaseGuard, LeaseLost } from './lease.js';

/**
 * The wallet follower's walk: providers serve an account's transactions newest first, a page at
 * a time, so the new ones are found by walking back from the newest to the follower's cursor.
 * A walk may take many rounds (thousands of transactions after an outage or a dust flood); each
 * round reads at most its request budget of pages, and what it read is kept in
 * chain_walk_transactions with the walk's place in chain_state, so the next round (or the next
 * process, after a restart) goes on from there and never reads a page twice. Once the walk has
 * reached the cursor, the follower processes what it kept, oldest first.
 */
export const WALK_KEY = 'wallet_walk';
/** Transactions asked for per page (the provider's page; toncenter serves up to 100). */
export const PAGE = 30;

export interface Cursor {
  lt: string;
  hash: string;
}

export interface Walk {
  /** The chain's time when the walk read its first page: it covers everything the chain had then. */
  startedAt: number;
  /** Where the next page starts (inclusive: the oldest transaction read so far); null before the first page. */
  from: Cursor | null;
  /** True once the walk has reached the cursor (or the start of the wallet's history). */
  done: boolean;
  pages: number;
  /** Transactions kept (newer than the cursor) so far, counting one served twice once per page. */
  kept: number;
}

export async function readWalk(db: DomainContext['db']): Promise<Walk | null> {
  const raw = await readChainState(db, WALK_KEY);
  return raw ? (JSON.parse(raw) as Walk) : null;
}

export function endWalk(db: DomainContext['db']): Promise<void> {
  return deleteChainState(db, WALK_KEY);
}

/**
 * Goes on with the walk (or starts one) for at most `maxRequests` pages; returns where it stands.
 * Every page is kept before the walk's place moves past it, in one database transaction.
 */
export async function continueWalk(
  ctx: DomainContext,
  live: LiveChain,
  cursor: Cursor | null,
  maxRequests: number,
  /** The chain lease: each page is kept only while this instance holds it (LeaseLost otherwise). */
  lease: LeaseGuard | null = null,
): Promise<Walk> {
  let walk: Walk = (await readWalk(ctx.db)) ?? {
    startedAt: live.nowSeconds(),
    from: null,
    done: false,
    pages: 0,
    kept: 0,
  };
  for (let request = 0; request < maxRequests && !walk.done; request++) {
    if (lease && !lease.held()) throw new LeaseLost(CHAIN_LEASE);
    const from = walk.from ? { lt: BigInt(walk.from.lt), hash: walk.from.hash } : undefined;
    if (!from) walk = { ...walk, startedAt: live.nowSeconds() };
    const page = await live.client.getTransactions(live.wallet.address, PAGE, from);
    const fresh = page.filter((t) => isNewer(t, cursor));
    const next = nextStep(page, from, fresh.length < page.length);
    walk = {
      ...walk,
      from: next === 'done' ? walk.from : next,
      done: next === 'done',
      pages: walk.pages + 1,
      kept: walk.kept + fresh.length,
    };
    const value = JSON.stringify(walk);
    await inTransaction(ctx.db, async (trx) => {
      await lease?.fence(trx);
      await keepWalkTransactions(
        trx,
        fresh.map((t) => ({ hash: t.hash, lt: t.lt, boc: t.tx.raw.toBoc().toString('base64') })),
      );
      await writeChainState(trx, WALK_KEY, value, ctx.clock.now().toISOString());
    });
  }
  return walk;
}

/** True when `t` comes after the cursor (every transaction does when there is none yet). */
function isNewer(t: ChainTransaction, cursor: Cursor | null): boolean {
  if (!cursor) return true;
  const lt = BigInt(cursor.lt);
  return t.lt > lt || (t.lt === lt && t.hash !== cursor.hash);
}

/**
 * Where the walk goes after this page: 'done' when it reached the cursor or the wallet's first
 * transaction (its previous lt is 0) or the provider has nothing older; else the page's oldest
 * transaction (the next page starts there, inclusive; the repeat is kept once). A page that
 * brought nothing older than its start (a provider serving a page twice) is asked for again.
 */
function nextStep(
  page: ChainTransaction[],
  from: { lt: bigint; hash: string } | undefined,
  reachedCursor: boolean,
): Cursor | 'done' {
  const oldest = page.at(-1);
  if (reachedCursor || !oldest || oldest.tx.prevTransactionLt === 0n) return 'done';
  if (from && oldest.lt >= from.lt) {
    return page.length === 1 ? 'done' : { lt: from.lt.toString(), hash: from.hash };
  }
  return { lt: oldest.lt.toString(), hash: oldest.hash };
}
