import {
  countLiveAgentKeys,
  findAgentKey,
  findAgentKeyInfo,
  insertApiKey,
  listAgentKeys,
  revokeKey,
  updateKeyScopes,
} from '../../db/repositories/apiKeys.js';
import type { Executor } from '../../db/repositories/executor.js';
import { listKeySpends, upsertKeyLimits } from '../../db/repositories/keySpend.js';
import type { DomainContext } from '../context.js';
import { conflict, invalid, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { checkKeyCreation } from '../owners/ownerLimits.js';
import { textLength } from '../text.js';
import { inTransaction } from '../transaction.js';
import { encryptApiKey, generateApiKey, hashApiKey, keyHint } from './apiKeys.js';
import { applyPolicyPatch, limitsByCurrency, type SpendPolicyPatch } from './keyPolicies.js';
import { storedScopes } from './keyScopes.js';

/** Live keys an agent may hold at once (one per environment or machine is plenty). */
export const MAX_LIVE_KEYS_PER_AGENT = 20;
/** Keys listed (live and revoked, newest first). */
export const MAX_LISTED_KEYS = 100;
export const MAX_KEY_NAME = 60;

type KeyRow = Awaited<ReturnType<typeof listAgentKeys>>[number];
type SpendRow = Awaited<ReturnType<typeof listKeySpends>>[number];
/** A key as listed: its row, with its spend policy and counters (one row per currency it has). */
export type ApiKeyInfo = KeyRow & { spend: SpendRow[] };

export async function listApiKeys(
  ctx: DomainContext,
  agentId: string,
  db: Executor = ctx.db,
): Promise<ApiKeyInfo[]> {
  const keys = await listAgentKeys(db, agentId, MAX_LISTED_KEYS);
  const spends = await listKeySpends(
    db,
    keys.map((k) => k.id),
  );
  return keys.map((key) => ({ ...key, spend: spends.filter((s) => s.key_id === key.id) }));
}

/** One key of the agent with its policy (GET /agents/me shows the calling key). */
export async function getApiKey(ctx: DomainContext, agentId: string, keyId: string): Promise<ApiKeyInfo> {
  const key = await findAgentKeyInfo(ctx.db, agentId, keyId);
  if (!key) throw notFound('API key');
  return { ...key, spend: await listKeySpends(ctx.db, [keyId]) };
}

export interface KeyPatch {
  /** Per currency, per limit: a decimal amount, null to remove it; absent: unchanged. */
  spendPolicy?: SpendPolicyPatch;
  /** The key's scopes (the whole list, replacing the old one). */
  scopes?: string[];
}

/**
 * Changes a live key's spend policy and scopes: by the operator, or by the agent's owner in the
 * console; never by a key (no agent route reaches this). Bad input is a 400 and changes nothing.
 * The limits take effect at the key's next spend (they are read in the spend's transaction); the
 * scopes at its next request here and within API_KEY_CACHE_TTL_MS on other instances.
 */
export async function updateApiKey(
  ctx: DomainContext,
  agentId: string,
  keyId: string,
  patch: KeyPatch,
): Promise<ApiKeyInfo> {
  const scopes = patch.scopes === undefined ? undefined : storedScopes(patch.scopes);
  const now = ctx.clock.now().toISOString();
  const key = await inTransaction(ctx.db, async (trx) => {
    const existing = await findAgentKey(trx, agentId, keyId);
    if (!existing) throw notFound('API key');
    if (existing.revoked_at !== null) {
      throw conflict('This key is revoked: its policy and scopes can no longer change', {
        revokedAt: existing.revoked_at,
      });
    }
    if (patch.spendPolicy !== undefined) {
      const current = limitsByCurrency(await listKeySpends(trx, [keyId]));
      const next = applyPolicyPatch(current, patch.spendPolicy);
      for (const [currency, limits] of next) {
        if (current.get(currency) !== limits) await upsertKeyLimits(trx, keyId, currency, limits, now);
      }
    }
    if (scopes !== undefined) await updateKeyScopes(trx, agentId, keyId, scopes);
    return (await listApiKeys(ctx, agentId, trx)).find((k) => k.id === keyId)!;
  });
  // The key's cached scopes are forgotten here, as with a revocation.
  if (scopes !== undefined) ctx.apiKeys.forgetAgent(agentId);
  return key;
}

/**
 * A new named key for the agent; the plaintext is returned here and never again. Made by an
 * owner (`by.ownerId`), it counts against the owner's hourly bound on new keys.
 */
export async function createApiKey(
  ctx: DomainContext,
  agentId: string,
  input: { name: string },
  by: { ownerId: string | null; mode?: 'live' | 'test' } = { ownerId: null },
) {
  const name = checkKeyName(input.name);
  const now = ctx.clock.now();
  // A test key is made on the agent's test twin (the caller passes the twin's id: testMode.ts).
  const apiKey = generateApiKey(by.mode ?? 'live');
  const id = newId('apiKey', now.getTime());
  await inTransaction(ctx.db, async (trx) => {
    if (by.ownerId !== null) await checkKeyCreation(trx, by.ownerId, now);
    if ((await countLiveAgentKeys(trx, agentId)) >= MAX_LIVE_KEYS_PER_AGENT) {
      throw conflict(`An agent can hold at most ${MAX_LIVE_KEYS_PER_AGENT} live keys; revoke one first`);
    }
    await insertApiKey(trx, {
      id,
      agentId,
      hash: hashApiKey(apiKey),
      ciphertext: encryptApiKey(apiKey, ctx.secretKey),
      hint: keyHint(apiKey),
      name,
      now: now.toISOString(),
    });
  });
  const key = (await listApiKeys(ctx, agentId)).find((k) => k.id === id);
  return { key: key!, apiKey };
}

/**
 * Revokes one of the agent's keys. This is the only place a key is revoked: the API-key look-up
 * (authenticateApiKey) reads revoked_at on every request, so the key is refused from its next
 * request on; a look-up cache must be invalidated here too.
 */
export async function revokeApiKey(ctx: DomainContext, agentId: string, keyId: string) {
  const now = ctx.clock.now().toISOString();
  const revoked = await revokeKey(ctx.db, agentId, keyId, now);
  if (revoked) {
    // This instance forgets the agent's cached keys now, so the key is refused on its next
    // request here; other instances drop it within API_KEY_CACHE_TTL_MS.
    ctx.apiKeys.forgetAgent(agentId);
    return { ...revoked, spend: await listKeySpends(ctx.db, [revoked.id]) };
  }
  const existing = await findAgentKey(ctx.db, agentId, keyId);
  if (!existing) throw notFound('API key');
  throw conflict('This key is already revoked', { revokedAt: existing.revoked_at });
}

function checkKeyName(value: string): string {
  const name = value.trim();
  if (name.length === 0) throw invalid('name', 'must not be blank: name the key after where it is used');
  if (textLength(name) > MAX_KEY_NAME) throw invalid('name', `must be at most ${MAX_KEY_NAME} characters`);
  return name;
}
