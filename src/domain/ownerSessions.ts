import { createHash, createHmac, randomBytes } from 'node:crypto';
import { type TonProofReply, verifyTonProof } from '../chain/tonProof.js';
import {
  consumeOwnerChallenge,
  countOpenOwnerChallenges,
  deleteOwnerSession,
  findLiveOwnerSession,
  findOwnerChallenge,
  insertOwnerChallenge,
  insertOwnerSession,
  pruneOwnerChallenges,
  pruneOwnerSessions,
  upsertOwner,
} from '../db/repositories/owners.js';
import { safeEqual } from './apiKeys.js';
import type { DomainContext } from './context.js';
import { DomainError, invalid } from './errors.js';
import { newId } from './ids.js';
import { inTransaction } from './transaction.js';
import { TON_PROOF_MAX_AGE_MS } from './walletProof.js';

/** How long a sign-in payload can be signed and used. */
export const OWNER_CHALLENGE_TTL_MS = 10 * 60_000;
/** A console session lasts this long from sign-in, then the owner signs in again. */
export const OWNER_SESSION_TTL_MS = 12 * 60 * 60_000;
/** Open sign-in challenges in all: anyone may ask for one, so their number is capped. */
export const MAX_OPEN_OWNER_CHALLENGES = 10_000;
/** Live sessions kept per owner (several browsers); signing in again drops the oldest. */
const MAX_SESSIONS_PER_OWNER = 10;
const CHALLENGE_ROUTE = 'POST /console/api/auth/challenge';

export interface OwnerSession {
  ownerId: string;
  walletAddress: string;
  csrfToken: string;
  expiresAt: string;
}

/** Issues a random, single-use TON Connect proof payload for a console sign-in. */
export async function issueOwnerChallenge(ctx: DomainContext) {
  const now = ctx.clock.now();
  const payload = randomBytes(32).toString('hex');
  const expiresAt = new Date(now.getTime() + OWNER_CHALLENGE_TTL_MS).toISOString();
  await inTransaction(ctx.db, async (trx) => {
    await pruneOwnerChallenges(trx, now.toISOString());
    if ((await countOpenOwnerChallenges(trx, now.toISOString())) >= MAX_OPEN_OWNER_CHALLENGES) {
      throw new DomainError('rate_limited', 'Too many sign-ins in progress; try again in a few minutes', {
        retryAfter: 60,
      });
    }
    await insertOwnerChallenge(trx, { payload, expiresAt, now: now.toISOString() });
  });
  return { payload, expiresAt };
}

/**
 * Signs an owner in from a TON Connect `ton_proof`, checked exactly like a worker's wallet proof
 * (domain allow-list, age, wallet state init, signature); then, in one transaction, the payload
 * is used up (single use) and the owner (created on first sign-in) gets a new session.
 * Returns the session token, which only the cookie carries, and the session.
 */
export async function signInOwner(
  ctx: DomainContext,
  proof: TonProofReply,
  options: { allowedDomains: readonly string[] },
): Promise<{ token: string; session: OwnerSession }> {
  const now = ctx.clock.now();
  const wallet = verifyTonProof(proof, {
    allowedDomains: options.allowedDomains,
    now,
    maxAgeMs: TON_PROOF_MAX_AGE_MS,
    network: ctx.chain.network,
  });
  const token = newSessionToken(ctx.secretKey);
  const csrfToken = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + OWNER_SESSION_TTL_MS).toISOString();
  const ownerId = await inTransaction(ctx.db, async (trx) => {
    if (!(await consumeOwnerChallenge(trx, proof.proof.payload, now.toISOString()))) {
      const known = await findOwnerChallenge(trx, proof.proof.payload);
      const reason = !known
        ? 'is not a payload this service issued'
        : known.used_at
          ? 'was already used'
          : 'has expired';
      throw invalid('proof/payload', `${reason}; get a new one with ${CHALLENGE_ROUTE} and sign it again`);
    }
    const owner = await upsertOwner(trx, {
      id: newId('owner', now.getTime()),
      walletAddress: wallet.address,
      now: now.toISOString(),
    });
    await pruneOwnerSessions(trx, owner.id, now.toISOString(), MAX_SESSIONS_PER_OWNER - 1);
    await insertOwnerSession(trx, {
      token_hash: hashToken(token),
      owner_id: owner.id,
      csrf_token: csrfToken,
      expires_at: expiresAt,
      created_at: now.toISOString(),
    });
    return owner.id;
  });
  return { token, session: { ownerId, walletAddress: wallet.address, csrfToken, expiresAt } };
}

/**
 * What a session cookie names: a live session; `ended`, a session this service issued that was
 * signed out, dropped for a newer one or expired (a stale browser tab, not a guess); or `forged`,
 * a token this service never issued (its tag does not verify), which is looked up nowhere.
 */
export type SessionLookup = { session: OwnerSession } | { ended: true } | { forged: true };

export async function findOwnerSession(ctx: DomainContext, token: string): Promise<SessionLookup> {
  if (!isIssuedToken(ctx.secretKey, token)) return { forged: true };
  const row = await findLiveOwnerSession(ctx.db, hashToken(token), ctx.clock.now().toISOString());
  if (!row) return { ended: true };
  return {
    session: {
      ownerId: row.owner_id,
      walletAddress: row.wallet_address,
      csrfToken: row.csrf_token,
      expiresAt: row.expires_at,
    },
  };
}

/**
 * A session token is 32 random bytes and a tag (an HMAC of them under SECRET_KEY), both
 * base64url, joined by a dot. The tag tells a token this service issued (however old) from a
 * made-up one without a database look-up: a stale tab is told to sign in again, while made-up
 * tokens count as failed sign-ins.
 */
function newSessionToken(secretKey: Buffer): string {
  const id = randomBytes(32).toString('base64url');
  return `${id}.${sessionTag(secretKey, id)}`;
}

const SESSION_ID_CHARS = 43;
const SESSION_TAG_CHARS = 22;

function isIssuedToken(secretKey: Buffer, token: string): boolean {
  if (token.length !== SESSION_ID_CHARS + 1 + SESSION_TAG_CHARS) return false;
  const id = token.slice(0, SESSION_ID_CHARS);
  return (
    token[SESSION_ID_CHARS] === '.' && safeEqual(token.slice(SESSION_ID_CHARS + 1), sessionTag(secretKey, id))
  );
}

function sessionTag(secretKey: Buffer, id: string): string {
  return createHmac('sha256', secretKey)
    .update(`owner-session:${id}`)
    .digest()
    .subarray(0, 16)
    .toString('base64url');
}

export async function signOutOwner(ctx: DomainContext, token: string): Promise<void> {
  await deleteOwnerSession(ctx.db, hashToken(token));
}

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
