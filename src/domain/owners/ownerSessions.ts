import { createHash, createHmac, randomBytes } from 'node:crypto';
import { type TonProofReply, verifyTonProof } from '../../chain/tonProof.js';
import {
  consumeOwnerChallenge,
  countOpenOwnerChallenges,
  deleteBrowserChallenges,
  deleteOwnerSession,
  evictFromHeaviestClient,
  findLiveOwnerSession,
  findOwnerChallenge,
  insertOwnerChallenge,
  insertOwnerSession,
  pruneOwnerChallenges,
  pruneOwnerSessions,
  upsertOwner,
} from '../../db/repositories/owners.js';
import { safeEqual } from '../agents/apiKeys.js';
import type { DomainContext } from '../context.js';
import { DomainError, invalid } from '../errors.js';
import { newId } from '../ids.js';
import { inTransaction } from '../transaction.js';
import { TON_PROOF_MAX_AGE_MS } from '../workers/walletProof.js';

/** How long a sign-in payload can be signed and used. */
export const OWNER_CHALLENGE_TTL_MS = 10 * 60_000;
/** A console session lasts this long from sign-in, then the owner signs in again. */
export const OWNER_SESSION_TTL_MS = 12 * 60 * 60_000;
/**
 * Open sign-in challenges one client (an IPv4 address or an IPv6 /64) may hold: anyone may ask
 * for one, so strangers must not be able to hold them all. A browser asking again replaces its
 * own, so this counts browsers signing in at once from one address.
 */
export const MAX_OPEN_CHALLENGES_PER_CLIENT = 20;
/**
 * Open challenges stored in all (a storage bound, not a gate): at the bound the oldest challenge
 * of the client holding the most is dropped, so filling the table costs the filler, never a newcomer.
 */
export const MAX_STORED_OWNER_CHALLENGES = 100_000;
export interface ChallengeBounds {
  maxPerClient: number;
  maxStored: number;
}
const CHALLENGE_BOUNDS: ChallengeBounds = {
  maxPerClient: MAX_OPEN_CHALLENGES_PER_CLIENT,
  maxStored: MAX_STORED_OWNER_CHALLENGES,
};
/** Live sessions kept per owner (several browsers); signing in again drops the oldest. */
const MAX_SESSIONS_PER_OWNER = 10;
const CHALLENGE_ROUTE = 'POST /console/api/auth/challenge';

export interface OwnerSession {
  ownerId: string;
  walletAddress: string;
  csrfToken: string;
  expiresAt: string;
}

/**
 * Issues a random, single-use TON Connect proof payload for a console sign-in, bound to the
 * browser that asked: `browser` is its sign-in cookie (made here on its first challenge), and
 * only a login carrying that cookie may present the proof. `client` is who asked (clientGroup).
 */
export async function issueOwnerChallenge(
  ctx: DomainContext,
  asker: { client: string; browser: string | null },
  bounds: ChallengeBounds = CHALLENGE_BOUNDS,
) {
  const now = ctx.clock.now();
  const at = now.toISOString();
  const payload = randomBytes(32).toString('hex');
  const browser =
    asker.browser && BROWSER_COOKIE.test(asker.browser) ? asker.browser : randomBytes(32).toString('hex');
  const browserHash = hashToken(browser);
  const expiresAt = new Date(now.getTime() + OWNER_CHALLENGE_TTL_MS).toISOString();
  await inTransaction(ctx.db, async (trx) => {
    await pruneOwnerChallenges(trx, at);
    // A browser asking again (a second click, a reload) replaces its own open challenge.
    await deleteBrowserChallenges(trx, browserHash);
    const mine = await countOpenOwnerChallenges(trx, at, asker.client);
    if (mine.count >= bounds.maxPerClient) {
      const retryAfter = Math.max(1, Math.ceil((Date.parse(mine.oldestExpiresAt!) - now.getTime()) / 1000));
      throw new DomainError(
        'rate_limited',
        `${bounds.maxPerClient} sign-ins are in progress from your address: finish one in the browser that started it, or retry in ${retryAfter} s`,
        { retryAfter },
      );
    }
    let stored = (await countOpenOwnerChallenges(trx, at)).count;
    while (stored >= bounds.maxStored && (await evictFromHeaviestClient(trx, at))) stored--;
    await insertOwnerChallenge(trx, { payload, expiresAt, now: at, client: asker.client, browserHash });
  });
  return { payload, expiresAt, browser };
}

/** A sign-in cookie: 32 random bytes in hex, made by issueOwnerChallenge. */
const BROWSER_COOKIE = /^[0-9a-f]{64}$/;

/**
 * Signs an owner in from a TON Connect `ton_proof`, checked exactly like a worker's wallet proof
 * (domain allow-list, age, wallet state init, signature); then, in one transaction, the payload
 * is used up (single use) and the owner (created on first sign-in) gets a new session.
 * Returns the session token, which only the cookie carries, and the session.
 */
export async function signInOwner(
  ctx: DomainContext,
  proof: TonProofReply,
  options: { allowedDomains: readonly string[]; browser: string | null },
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
    const browserHash = hashToken(options.browser ?? '');
    if (!(await consumeOwnerChallenge(trx, proof.proof.payload, browserHash, now.toISOString()))) {
      const known = await findOwnerChallenge(trx, proof.proof.payload);
      const reason = !known
        ? 'is not a payload this service issued'
        : known.used_at
          ? 'was already used'
          : known.expires_at <= now.toISOString()
            ? 'has expired'
            : 'was issued to another browser (or this one lost its sign-in cookie)';
      const where =
        known && !known.used_at && known.expires_at > now.toISOString() ? ' from this browser' : '';
      throw invalid(
        'proof/payload',
        `${reason}; get a new one with ${CHALLENGE_ROUTE}${where} and sign it again`,
      );
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
