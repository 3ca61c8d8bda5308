import {
  countLiveAgentKeys,
  findAgentKey,
  insertApiKey,
  listAgentKeys,
  revokeKey,
} from '../db/repositories/apiKeys.js';
import { encryptApiKey, generateApiKey, hashApiKey, keyHint } from './apiKeys.js';
import type { DomainContext } from './context.js';
import { conflict, invalid, notFound } from './errors.js';
import { newId } from './ids.js';
import { checkKeyCreation } from './ownerLimits.js';
import { textLength } from './text.js';
import { inTransaction } from './transaction.js';

/** Live keys an agent may hold at once (one per environment or machine is plenty). */
export const MAX_LIVE_KEYS_PER_AGENT = 20;
/** Keys listed (live and revoked, newest first). */
export const MAX_LISTED_KEYS = 100;
export const MAX_KEY_NAME = 60;

export type ApiKeyInfo = Awaited<ReturnType<typeof listAgentKeys>>[number];

export function listApiKeys(ctx: DomainContext, agentId: string): Promise<ApiKeyInfo[]> {
  return listAgentKeys(ctx.db, agentId, MAX_LISTED_KEYS);
}

/**
 * A new named key for the agent; the plaintext is returned here and never again. Made by an
 * owner (`by.ownerId`), it counts against the owner's hourly bound on new keys.
 */
export async function createApiKey(
  ctx: DomainContext,
  agentId: string,
  input: { name: string },
  by: { ownerId: string | null } = { ownerId: null },
) {
  const name = checkKeyName(input.name);
  const now = ctx.clock.now();
  const apiKey = generateApiKey();
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
  const key = (await listAgentKeys(ctx.db, agentId, MAX_LISTED_KEYS)).find((k) => k.id === id);
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
    return revoked;
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
