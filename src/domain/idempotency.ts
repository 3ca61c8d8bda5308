import { randomBytes } from 'node:crypto';
import type { Executor } from '../db/repositories/executor.js';
import {
  completeIdempotencyKey,
  deleteIdempotencyKey,
  findIdempotencyKey,
  insertIdempotencyKey,
  purgeExpiredIdempotencyKeys,
  releaseIdempotencyKey,
  relockIdempotencyKey,
  updateIdempotentResponse,
} from '../db/repositories/idempotencyKeys.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import type { DomainContext } from './context.js';
import { conflict, DomainError } from './errors.js';
import { forgetUnit, type Unit, withUnit } from './idempotencyUnit.js';
import { inTransaction, isUniqueViolation } from './transaction.js';

/** Keys are kept this long after their first use, as payments APIs do. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/**
 * A running key whose holder has not committed within this is taken to have crashed (its effect
 * did not commit, or the key would be done) and may be taken over. The take-over is safe even if
 * the holder is only slow: the key is completed by compare-and-set on the holder's token inside
 * the effect's transaction, so at most one of them commits.
 */
const LOCK_MS = 60_000;
/**
 * Key syntax: what Stripe accepts (up to 255 visible ASCII characters, 0x21-0x7e, written as the
 * range ! to ~ because MCP's tools/list repeats it); a UUID is the usual choice.
 */
export const IDEMPOTENCY_KEY_PATTERN = /^[!-~]{1,255}$/;

export interface IdempotencyRequest {
  /** Whose key it is: `agent:agt_...`, `worker:wrk_...`, `admin`. Keys of different callers never meet. */
  scope: string;
  /** The caller's Idempotency-Key. */
  key: string;
  /** A digest of the request (see requestFingerprint); the same key with another request is 422. */
  fingerprint: string;
}

/** A response as it is stored and replayed: the status and the JSON body. */
export interface StoredResponse {
  status: number;
  body: unknown;
}

export interface IdempotentOutcome extends StoredResponse {
  /** True when this is the stored answer of an earlier request with the same key. */
  replayed: boolean;
}

/**
 * Runs `effect` at most once per (scope, key) within 24 hours, and returns its response, or the
 * stored response of the first run (`replayed`). The key is completed, with the response, in the
 * same database transaction as the effect (the first transaction `effect` commits, which must
 * return the effect's result, as every domain operation here does); so a crash either leaves
 * both or neither, and a retry then replays or runs the effect anew.
 *
 * - same key, same request, first one done: its stored status and body;
 * - same key, first one still running: 409 (retry shortly);
 * - same key, another request: 422;
 * - a run that fails (any error before its effect commits) releases the key: nothing happened,
 *   so the caller may fix the request and retry with the same key.
 *
 * `respond` turns the result into the stored response; it gets the executor to read with (the
 * transaction during the commit). After the effect returns, `respond` runs again on the final
 * result and the stored response is replaced if it differs (completion learns its chain hashes
 * after its commit: a replay then shows them).
 * Without a request (`null`: no Idempotency-Key) the effect simply runs.
 *
 * The effect gets a context whose `db` carries the key (idempotencyUnit.ts): it must open its
 * transactions with `inTransaction(ctx.db, ...)` on that context, as every domain operation does.
 */
export async function idempotent<R>(
  ctx: DomainContext,
  request: IdempotencyRequest | null,
  effect: (ctx: DomainContext) => Promise<R>,
  respond: (result: R, db: Executor) => Promise<StoredResponse> | StoredResponse,
): Promise<IdempotentOutcome> {
  if (!request) return { ...(await respond(await effect(ctx), ctx.db)), replayed: false };
  const claim = await claimKey(ctx, request);
  if ('replay' in claim) return { ...claim.replay, replayed: true };
  const { token } = claim;
  let storedBody: string | null = null;
  const unit: Unit = {
    bound: false,
    async bindInTransaction(trx, result) {
      const response = await respond(result as R, trx);
      storedBody = JSON.stringify(response.body);
      const done = await completeIdempotencyKey(trx, {
        ...keyOf(request),
        token,
        status: response.status,
        body: storedBody,
      });
      // Another attempt took the key over (ours outlived its lock): roll our effect back.
      if (!done) throw inFlight();
    },
  };
  let result: R;
  // The effect's transactions see the unit through a handle of their own on the database.
  const db = withUnit(ctx.db, unit);
  try {
    result = await effect({ ...ctx, db });
  } catch (error) {
    if (!unit.bound) await releaseKey(ctx.db, { ...keyOf(request), token });
    throw error;
  } finally {
    // Settled: work the effect left running (a timer it set) must not bind the key now.
    forgetUnit(db);
  }
  const response = await respond(result, ctx.db);
  const body = JSON.stringify(response.body);
  if (unit.bound && body !== storedBody) {
    await updateIdempotentResponse(ctx.db, { ...keyOf(request), status: response.status, body });
  } else if (!unit.bound) {
    // The effect committed nothing (a read-only outcome): keep its answer all the same.
    await completeIdempotencyKey(ctx.db, { ...keyOf(request), token, status: response.status, body });
  }
  return { ...response, replayed: false };
}

const keyOf = (request: IdempotencyRequest) => ({ scope: request.scope, key: request.key });

/** How often a failed run's key release is tried again while the database is away. */
const RELEASE_RETRY_MS = 1_000;

/**
 * Releases the key of a run that failed. When the database is away (most likely why the run
 * failed) the release is tried again each second in the background until the lock would lapse
 * anyway, so the caller's retry with the same key runs as soon as the database is back instead of
 * answering 409 for a minute. Safe to repeat: the release deletes only a running key that still
 * holds this run's token (a run whose commit did land completed the key in that commit).
 */
async function releaseKey(db: Executor, row: { scope: string; key: string; token: string }) {
  try {
    await releaseIdempotencyKey(db, row);
  } catch (error) {
    if (!isDatabaseUnavailable(error)) throw error;
    let left = Math.ceil(LOCK_MS / RELEASE_RETRY_MS);
    const retry = () => {
      if (left-- <= 0) return;
      releaseIdempotencyKey(db, row).catch(() => setTimeout(retry, RELEASE_RETRY_MS).unref());
    };
    setTimeout(retry, RELEASE_RETRY_MS).unref();
  }
}

type Claim = { token: string } | { replay: StoredResponse };

async function claimKey(ctx: DomainContext, request: IdempotencyRequest): Promise<Claim> {
  try {
    return await claimOnce(ctx, request);
  } catch (error) {
    // Two first uses raced to insert: the loser now sees the winner's row.
    if (isUniqueViolation(error)) return claimOnce(ctx, request);
    throw error;
  }
}

function claimOnce(ctx: DomainContext, request: IdempotencyRequest): Promise<Claim> {
  return inTransaction(ctx.db, async (trx) => {
    const now = ctx.clock.now();
    const at = now.toISOString();
    const token = randomBytes(12).toString('hex');
    const lockedUntil = new Date(now.getTime() + LOCK_MS).toISOString();
    const row = await findIdempotencyKey(trx, request.scope, request.key);
    if (row && row.expires_at > at) {
      if (row.fingerprint !== request.fingerprint) throw reused();
      if (row.status === 'done') {
        return {
          replay: { status: row.response_status ?? 200, body: JSON.parse(row.response_body ?? 'null') },
        };
      }
      if (row.locked_until !== null && row.locked_until > at) throw inFlight();
      const relocked = await relockIdempotencyKey(trx, {
        ...keyOf(request),
        oldToken: row.lock_token,
        token,
        lockedUntil,
      });
      if (!relocked) throw inFlight();
      return { token };
    }
    if (row) await deleteIdempotencyKey(trx, request.scope, request.key);
    await insertIdempotencyKey(trx, {
      ...keyOf(request),
      fingerprint: request.fingerprint,
      status: 'running',
      lock_token: token,
      locked_until: lockedUntil,
      response_status: null,
      response_body: null,
      created_at: at,
      expires_at: new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString(),
    });
    return { token };
  });
}

const inFlight = () =>
  conflict('A request with this Idempotency-Key is still in progress; retry in a moment to get its result', {
    idempotencyKey: 'in_progress',
  });

const reused = () =>
  new DomainError(
    'unprocessable',
    'This Idempotency-Key was already used with a different request; use a new key for a new request',
  );

/** Background clean-up: expired keys are dead weight (a lookup already ignores them). */
export async function purgeExpiredKeys(ctx: DomainContext): Promise<number> {
  await purgeExpiredIdempotencyKeys(ctx.db, ctx.clock.now().toISOString());
  return 0;
}
