import { totalDeposited } from '../../db/repositories/balances.js';
import type { Executor } from '../../db/repositories/executor.js';
import {
  agentsCreatedSince,
  deleteFaucetGrant,
  faucetGrantsSince,
  insertFaucetGrant,
  keysCreatedSince,
  lockOwner,
  lockWorker,
  offersToWorkerSince,
} from '../../db/repositories/ownerLimits.js';
import { MAX_PLATFORM_DEPOSITED_NANO } from '../agents/agents.js';
import type { DomainContext } from '../context.js';
import { conflict, DomainError, invalid } from '../errors.js';
import { newId } from '../ids.js';
import { amountText } from '../money/currency.js';
import { NANO_PER_TON } from '../money/money.js';
import { inTransaction } from '../transaction.js';

// API keys, agents and even owners are free (any TON key pair signs in), so a limit per key or
// per agent bounds nothing on its own. These hold per owner and per worker, counted from the
// database (several instances share it), each under a row lock so concurrent requests count one
// after the other.

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** Direct offers one worker may get in any 24 hours from all the agents of one owner. */
export const MAX_OFFERS_FROM_OWNER_PER_WORKER_PER_DAY = 5;
/** Direct offers one worker may get in any 24 hours from all agents: each is a Telegram message. */
export const MAX_OFFERS_TO_WORKER_PER_DAY = 20;
/** Agents one owner may create in any hour (beside the 50 they may hold). */
export const MAX_AGENTS_CREATED_PER_OWNER_PER_HOUR = 10;
/** API keys made for one owner's agents in any hour, revoked ones and new agents' first keys included. */
export const MAX_KEYS_CREATED_PER_OWNER_PER_HOUR = 30;
/** Sandbox faucet top-ups one owner's agents may take together in any 24 hours. */
export const MAX_FAUCET_PER_OWNER_PER_DAY_NANO = 10_000n * NANO_PER_TON;
/** The faucet never takes the platform's deposits into this last part of their cap: the operator's. */
export const FAUCET_OPERATOR_RESERVE_NANO = 1_000_000_000n * NANO_PER_TON;

/**
 * Seconds until one of `times` (oldest first, within the window) leaves the window so that fewer
 * than `limit` remain; null when fewer than `limit` are there now.
 */
function secondsUntilRoom(times: string[], limit: number, windowMs: number, now: Date): number | null {
  if (times.length < limit) return null;
  const freeing = Date.parse(times[times.length - limit]!);
  return Math.max(1, Math.ceil((freeing + windowMs - now.getTime()) / 1000));
}

const since = (now: Date, windowMs: number) => new Date(now.getTime() - windowMs).toISOString();

/**
 * Refuses a new direct offer to the worker past the per-owner and per-worker bounds. `counted`
 * says whether this offer's own row is already written (and so among the counted ones).
 */
export async function checkOffersToWorker(
  db: Executor,
  workerId: string,
  ownerId: string | null,
  now: Date,
  counted: boolean,
): Promise<void> {
  const extra = counted ? 1 : 0;
  const all = await offersToWorkerSince(db, workerId, since(now, DAY_MS));
  const allWait = secondsUntilRoom(all, MAX_OFFERS_TO_WORKER_PER_DAY + extra, DAY_MS, now);
  if (allWait !== null) {
    throw new DomainError(
      'rate_limited',
      `This worker got ${MAX_OFFERS_TO_WORKER_PER_DAY} direct offers in the last 24 hours, the most one worker may get; retry in ${allWait} s, or post the task without assignToUserId so anyone can apply`,
      { retryAfter: allWait },
    );
  }
  if (ownerId === null) return;
  const mine = await offersToWorkerSince(db, workerId, since(now, DAY_MS), ownerId);
  const mineWait = secondsUntilRoom(mine, MAX_OFFERS_FROM_OWNER_PER_WORKER_PER_DAY + extra, DAY_MS, now);
  if (mineWait !== null) {
    throw new DomainError(
      'rate_limited',
      `This worker got ${MAX_OFFERS_FROM_OWNER_PER_WORKER_PER_DAY} direct offers from your owner's agents in the last 24 hours, the most allowed (each one notifies them); retry in ${mineWait} s, or post the task without assignToUserId so anyone can apply`,
      { retryAfter: mineWait },
    );
  }
}

/**
 * The bound again once the offer is written, under the worker's row lock: on PostgreSQL two
 * agents' concurrent offers are then counted one after the other, so none slips past.
 */
export async function recheckOffersToWorker(
  db: Executor,
  workerId: string,
  ownerId: string | null,
  now: Date,
): Promise<void> {
  await lockWorker(db, workerId);
  await checkOffersToWorker(db, workerId, ownerId, now, true);
}

/**
 * Refuses a new agent (with its first key) past the owner's hourly bounds. Counted before the
 * owner's row is locked (a refusal then writes nothing) and again under the lock.
 */
export async function checkAgentCreation(db: Executor, ownerId: string, now: Date): Promise<void> {
  await refuseAgentCreation(db, ownerId, now);
  await lockOwner(db, ownerId);
  await refuseAgentCreation(db, ownerId, now);
}

async function refuseAgentCreation(db: Executor, ownerId: string, now: Date): Promise<void> {
  const agents = await agentsCreatedSince(db, ownerId, since(now, HOUR_MS));
  const wait = secondsUntilRoom(agents, MAX_AGENTS_CREATED_PER_OWNER_PER_HOUR, HOUR_MS, now);
  if (wait !== null) {
    throw new DomainError(
      'rate_limited',
      `You created ${MAX_AGENTS_CREATED_PER_OWNER_PER_HOUR} agents in the last hour, the most allowed; retry in ${wait} s, or give an existing agent another key`,
      { retryAfter: wait },
    );
  }
  await checkKeysCreated(db, ownerId, now);
}

/** Refuses a new API key past the owner's hourly bound: counted, then counted again under the owner's lock. */
export async function checkKeyCreation(db: Executor, ownerId: string, now: Date): Promise<void> {
  await checkKeysCreated(db, ownerId, now);
  await lockOwner(db, ownerId);
  await checkKeysCreated(db, ownerId, now);
}

async function checkKeysCreated(db: Executor, ownerId: string, now: Date): Promise<void> {
  const keys = await keysCreatedSince(db, ownerId, since(now, HOUR_MS));
  const wait = secondsUntilRoom(keys, MAX_KEYS_CREATED_PER_OWNER_PER_HOUR, HOUR_MS, now);
  if (wait !== null) {
    throw new DomainError(
      'rate_limited',
      `You created ${MAX_KEYS_CREATED_PER_OWNER_PER_HOUR} API keys in the last hour (revoked ones and new agents' first keys count), the most allowed; retry in ${wait} s`,
      { retryAfter: wait },
    );
  }
}

/**
 * Takes `amountNano` of the owner's faucet allowance, or refuses: 429 past the owner's 24-hour
 * allowance (with when enough frees up), 409 when the platform's deposits are in the operator's
 * reserve. The grant is written before anything is sent, under the owner's row lock, so
 * concurrent top-ups cannot pass the allowance; `release` gives it back if the top-up fails.
 */
export async function takeFaucetGrant(
  ctx: DomainContext,
  ownerId: string,
  agentId: string,
  amountNano: bigint,
): Promise<{ release(): Promise<void> }> {
  if (amountNano > MAX_FAUCET_PER_OWNER_PER_DAY_NANO) {
    throw invalid(
      'amount',
      `must be at most ${amountText('TON', MAX_FAUCET_PER_OWNER_PER_DAY_NANO)}: the sandbox faucet gives one owner at most that in 24 hours`,
    );
  }
  const now = ctx.clock.now();
  const platformRoom = MAX_PLATFORM_DEPOSITED_NANO - FAUCET_OPERATOR_RESERVE_NANO;
  const id = newId('faucetGrant', now.getTime());
  await inTransaction(ctx.db, async (trx) => {
    const platform = await totalDeposited(trx, 'TON');
    if (platform + amountNano > platformRoom) {
      throw conflict(
        platform >= platformRoom
          ? `The sandbox faucet is closed: the platform's deposits reached ${amountText('TON', platformRoom)}, and the last ${amountText('TON', FAUCET_OPERATOR_RESERVE_NANO)} of its ${amountText('TON', MAX_PLATFORM_DEPOSITED_NANO)} cap are kept for the operator`
          : `The sandbox faucet can give at most ${amountText('TON', platformRoom - platform)} more before the platform's deposits reach the part of their cap kept for the operator; ask for less`,
      );
    }
    const grants = await faucetGrantsSince(trx, ownerId, since(now, DAY_MS));
    const refusal = faucetRefusal(grants, amountNano, now);
    if (refusal) throw refusal;
    await lockOwner(trx, ownerId);
    const locked = faucetRefusal(await faucetGrantsSince(trx, ownerId, since(now, DAY_MS)), amountNano, now);
    if (locked) throw locked;
    await insertFaucetGrant(trx, { id, ownerId, agentId, amountNano, now: now.toISOString() });
  });
  return { release: () => deleteFaucetGrant(ctx.db, id) };
}

function faucetRefusal(
  grants: { amount_nano: bigint; created_at: string }[],
  amountNano: bigint,
  now: Date,
): DomainError | null {
  const cap = MAX_FAUCET_PER_OWNER_PER_DAY_NANO;
  let taken = grants.reduce((sum, g) => sum + BigInt(g.amount_nano), 0n);
  if (taken + amountNano <= cap) return null;
  // Room enough comes back when the oldest grants leave the 24-hour window.
  let freeAtMs = now.getTime();
  for (const grant of grants) {
    if (taken + amountNano <= cap) break;
    taken -= BigInt(grant.amount_nano);
    freeAtMs = Date.parse(grant.created_at) + DAY_MS;
  }
  const retryAfter = Math.max(1, Math.ceil((freeAtMs - now.getTime()) / 1000));
  const left = cap - grants.reduce((sum, g) => sum + BigInt(g.amount_nano), 0n);
  return new DomainError(
    'rate_limited',
    `The sandbox faucet gives one owner at most ${amountText('TON', cap)} in 24 hours; ${amountText('TON', left > 0n ? left : 0n)} is left now; ask for less or retry in ${retryAfter} s`,
    { retryAfter },
  );
}
