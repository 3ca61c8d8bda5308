import { randomBytes } from 'node:crypto';
import { type TonProofReply, verifyTonProof } from '../../chain/tonProof.js';
import type { WorkerRow } from '../../db/repositories/executor.js';
import {
  consumeWalletChallenge,
  findWalletChallenge,
  insertWalletChallenge,
  pruneWalletChallenges,
} from '../../db/repositories/walletChallenges.js';
import type { DomainContext } from '../context.js';
import { invalid } from '../errors.js';
import { inTransaction } from '../transaction.js';
import { saveWorkerWallet, setWorkerWallet } from './workerProfile.js';

/** How long an issued challenge can be used, and how old a wallet's signature may be. */
export const WALLET_CHALLENGE_TTL_MS = 15 * 60_000;
export const TON_PROOF_MAX_AGE_MS = 15 * 60_000;
/** Open challenges kept per worker (a Mini App opened on several devices); older ones are dropped. */
const MAX_OPEN_CHALLENGES = 5;
const CHALLENGE_ROUTE = 'POST /worker/me/wallet/challenge';

/** `PUT /worker/me/wallet`: a TON Connect proof, or (sandbox only) a bare address. */
export type WalletBody = TonProofReply | { address: string };

/**
 * Issues a single-use, short-lived TON Connect proof payload: the Mini App puts it in TonConnect
 * UI's `tonProof` request, and the wallet signs it together with our domain and its address.
 */
export async function issueWalletChallenge(ctx: DomainContext, workerId: string) {
  const now = ctx.clock.now();
  const payload = randomBytes(32).toString('hex');
  const expiresAt = new Date(now.getTime() + WALLET_CHALLENGE_TTL_MS).toISOString();
  await inTransaction(ctx.db, async (trx) => {
    await pruneWalletChallenges(trx, workerId, now.toISOString(), MAX_OPEN_CHALLENGES - 1);
    await insertWalletChallenge(trx, {
      payload,
      worker_id: workerId,
      expires_at: expiresAt,
      used_at: null,
      created_at: now.toISOString(),
    });
  });
  return { payload, expiresAt };
}

/**
 * Sets the worker's payout wallet from a TON Connect `ton_proof`: the proof is checked first (no
 * database work), then, in one transaction, the challenge is used up and the wallet stored with
 * the usual rule (no change while a task is assigned). If the wallet cannot be stored the
 * challenge stays unused, so the worker can try again with the same proof while it is fresh.
 * A bare `{address}`, with nothing proving the worker holds its key, is taken in the sandbox only.
 */
export async function connectWallet(
  ctx: DomainContext,
  workerId: string,
  body: WalletBody,
  options: { allowedDomains: readonly string[] },
): Promise<WorkerRow> {
  if (!('proof' in body)) {
    if (ctx.chain.network !== 'sandbox') {
      throw invalid(
        'proof',
        `is required: connect the wallet with TON Connect and send its ton_proof for a payload from ${CHALLENGE_ROUTE} (a bare address is accepted in the sandbox only)`,
      );
    }
    return setWorkerWallet(ctx, workerId, body.address);
  }
  const now = ctx.clock.now();
  const wallet = verifyTonProof(body, {
    allowedDomains: options.allowedDomains,
    now,
    maxAgeMs: TON_PROOF_MAX_AGE_MS,
    network: ctx.chain.network,
  });
  return inTransaction(ctx.db, async (trx) => {
    const used = await consumeWalletChallenge(trx, body.proof.payload, workerId, now.toISOString());
    if (!used) {
      const known = await findWalletChallenge(trx, body.proof.payload, workerId);
      const reason = !known
        ? 'is not a challenge issued to you (or a newer one replaced it)'
        : known.used_at
          ? 'was already used'
          : 'has expired';
      throw invalid('proof/payload', `${reason}; get a new one with ${CHALLENGE_ROUTE} and sign it again`);
    }
    return saveWorkerWallet(trx, workerId, wallet.address, now);
  });
}
