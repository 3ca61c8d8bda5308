import { sql } from 'kysely';
import { JETTON_TRANSFER_TON_NANO } from '../../chain/jetton/payout.js';
import { inFlightNano, inFlightUsdt } from '../../db/repositories/chainBatches.js';
import { readChainState } from '../../db/repositories/chainState.js';
import { countWalkTransactions } from '../../db/repositories/chainWalk.js';
import { type LeaseRow, readLease } from '../../db/repositories/leases.js';
import type { DomainContext } from '../context.js';
import { CURSOR_KEY } from './chainFollower.js';
import { PAUSE_KEY, SYNCED_KEY, USDT_PAUSE_KEY } from './chainSender.js';
import { readWalk } from './chainWalk.js';
import { MAX_TX_ATTEMPTS, readSkipped, readStuck } from './followerProblems.js';
import { CHAIN_LEASE, type Holder, SANDBOX_LEASE_NAME } from './lease.js';

/**
 * The operator's view of the chain side: wallets, follower, transfers by state, provider health,
 * and which instance holds the lease (the chain sender's, or the sandbox's). `me` is the instance
 * answering.
 */
export async function chainStatus(ctx: DomainContext, me: Holder) {
  const live = ctx.chain.live;
  const now = ctx.clock.now();
  const lease = await readLease(ctx.db, live ? CHAIN_LEASE : SANDBOX_LEASE_NAME);
  const transfers = await ctx.db
    .selectFrom('chain_transfers')
    .select([
      'status',
      sql<number>`count(*)`.as('n'),
      sql<string | null>`min(created_at)`.as('oldest'),
      sql<number>`sum(case when batch_id is null then 0 else 1 end)`.as('batched'),
    ])
    .groupBy('status')
    .execute();
  const pending = transfers.find((t) => t.status === 'pending');
  const sent = transfers.find((t) => t.status === 'sent');
  const failed = transfers.find((t) => t.status === 'failed');
  const cursorRaw = await readChainState(ctx.db, CURSOR_KEY);
  const syncedAt = await readChainState(ctx.db, SYNCED_KEY);
  let hotBalanceNano: bigint | null = null;
  let balanceError: string | null = null;
  try {
    hotBalanceNano = await ctx.chain.getBalance(ctx.chain.hotWalletAddress);
  } catch (error) {
    balanceError = (error as Error).message;
  }
  const ageSec = (iso: string | null | undefined) =>
    iso ? Math.max(0, Math.floor((now.getTime() - Date.parse(iso)) / 1000)) : null;
  return {
    network: ctx.chain.network,
    instance: me.instanceId,
    lease: lease ? leaseView(lease, me, now) : null,
    hotWallet: { address: ctx.chain.hotWalletAddress, balanceNano: hotBalanceNano, balanceError },
    depositAddress: ctx.chain.depositAddress,
    feeAddress: ctx.chain.feeAddress,
    watcher: live
      ? {
          cursor: cursorRaw ? (JSON.parse(cursorRaw) as { lt: string; hash: string }) : null,
          lagSec: syncedAt ? Math.max(0, live.nowSeconds() - Number(syncedAt)) : null,
          // The walk back to the cursor in progress (a backlog is read over several rounds), or null.
          walk: await walkProgress(ctx),
          // A transaction that failed and is tried again each round (skipped after maxAttempts).
          stuck: await readStuck(ctx.db),
          maxAttempts: MAX_TX_ATTEMPTS,
          // Transactions given up on, kept as unmatched deposits when they brought money.
          skipped: (await readSkipped(ctx.db)) ?? { count: 0, last: null },
        }
      : null,
    transfers: {
      pending: Number(pending?.n ?? 0) - Number(pending?.batched ?? 0),
      sent: Number(pending?.batched ?? 0),
      confirmed: Number(sent?.n ?? 0),
      // Given up on after MAX_TRANSFER_FAILURES (still owed; GET /admin/overview lists them).
      failed: Number(failed?.n ?? 0),
      oldestUnconfirmedAgeSec: ageSec(pending?.oldest),
    },
    payoutsPaused: await readChainState(ctx.db, PAUSE_KEY),
    usdt: await usdtStatus(ctx, hotBalanceNano),
    lastProviderError: live?.client.lastError ?? null,
    providerRequests: live?.client.budget.requests ?? null,
  };
}

/** Who holds the lease and until when; `expired` once no instance may count itself the holder. */
function leaseView(lease: LeaseRow, me: Holder, now: Date) {
  const expired = Date.parse(lease.expires_at) <= now.getTime();
  return {
    name: lease.name,
    holder: expired ? null : lease.holder,
    lastHolder: lease.holder,
    heldByThisInstance:
      !expired &&
      lease.holder === me.instanceId &&
      lease.host === me.host &&
      lease.pid === me.pid &&
      lease.run_id === me.runId,
    host: lease.host,
    pid: lease.pid,
    token: lease.token,
    acquiredAt: lease.acquired_at,
    renewedAt: lease.renewed_at,
    expiresAt: lease.expires_at,
    expired,
  };
}

async function walkProgress(ctx: DomainContext) {
  const walk = await readWalk(ctx.db);
  if (!walk) return null;
  return {
    pages: walk.pages,
    transactions: walk.kept,
    reachedCursor: walk.done,
    unprocessed: await countWalkTransactions(ctx.db),
  };
}

/**
 * USDT payouts: what the hot wallet holds to pay them (USDT, and TON for their gas) and why they
 * wait, if they do. Null when USDT is not configured.
 */
async function usdtStatus(ctx: DomainContext, hotBalanceNano: bigint | null) {
  const jetton = ctx.chain.jetton;
  if (!jetton) return null;
  let balanceMicro: bigint | null = null;
  let balanceError: string | null = null;
  try {
    balanceMicro = await jetton.balance(ctx.chain.hotWalletAddress);
  } catch (error) {
    balanceError = (error as Error).message;
  }
  const tonPromised = await inFlightNano(ctx.db);
  return {
    master: jetton.masterAddress,
    // The hot wallet's USDT, and how much of it transfers sent but not yet confirmed will take.
    hotBalance: balanceMicro,
    promisedToTransfers: await inFlightUsdt(ctx.db),
    balanceError,
    // The hot wallet's TON not promised to batches in flight: what pays the TON each USDT payout
    // carries (JETTON_TRANSFER_TON_NANO, most of it returned) and TON payouts alike.
    tonLeftForGasNano: hotBalanceNano === null ? null : hotBalanceNano - tonPromised,
    tonAttachedPerPayoutNano: JETTON_TRANSFER_TON_NANO,
    payoutsPaused: await readChainState(ctx.db, USDT_PAUSE_KEY),
  };
}
