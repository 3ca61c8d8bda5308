import { compiledOnce } from '../compiledQuery.js';
import type { Executor } from './executor.js';

export async function insertApiKey(
  db: Executor,
  row: {
    id: string;
    agentId: string;
    hash: string;
    ciphertext: string;
    hint: string;
    now: string;
    name?: string | null;
  },
): Promise<void> {
  await db
    .insertInto('api_keys')
    .values({
      id: row.id,
      agent_id: row.agentId,
      key_hash: row.hash,
      key_ciphertext: row.ciphertext,
      key_hint: row.hint,
      name: row.name ?? null,
      created_at: row.now,
      revoked_at: null,
    })
    .execute();
}

/** The live key with this hash, or undefined. */
const liveKeyByHash = compiledOnce((db: Executor, hash: string) =>
  db
    .selectFrom('api_keys')
    .select(['id', 'agent_id', 'last_used_at', 'scopes'])
    .where('key_hash', '=', hash)
    .where('revoked_at', 'is', null),
);

export async function findLiveKeyByHash(db: Executor, hash: string) {
  return (await liveKeyByHash(db, hash))[0];
}

/** The newest live key of an agent (its ciphertext signs the agent's webhooks). */
export function findSigningKey(db: Executor, agentId: string) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'key_ciphertext'])
    .where('agent_id', '=', agentId)
    .where('revoked_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

/** An agent's keys, newest first (revoked ones too: the console shows when they were revoked). */
export function listAgentKeys(db: Executor, agentId: string, limit: number) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'agent_id', 'name', 'key_hint', 'created_at', 'last_used_at', 'revoked_at', 'scopes'])
    .where('agent_id', '=', agentId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export async function countLiveAgentKeys(db: Executor, agentId: string): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('agent_id', '=', agentId)
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Revokes a live key of this agent (compare-and-set); undefined when there is none to revoke. */
export function revokeKey(db: Executor, agentId: string, keyId: string, now: string) {
  return db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('id', '=', keyId)
    .where('agent_id', '=', agentId)
    .where('revoked_at', 'is', null)
    .returning(['id', 'agent_id', 'name', 'key_hint', 'created_at', 'last_used_at', 'revoked_at', 'scopes'])
    .executeTakeFirst();
}

export function findAgentKey(db: Executor, agentId: string, keyId: string) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'revoked_at'])
    .where('id', '=', keyId)
    .where('agent_id', '=', agentId)
    .executeTakeFirst();
}

/** Records a use of the key at most once per `staleBefore` window, so a busy key rarely writes. */
export async function touchApiKey(db: Executor, keyId: string, now: string, staleBefore: string) {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: now })
    .where('id', '=', keyId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', staleBefore)]))
    .execute();
}

/** Sets a live key's scopes (null: every scope); undefined when the agent has no such live key. */
export function updateKeyScopes(db: Executor, agentId: string, keyId: string, scopes: string | null) {
  return db
    .updateTable('api_keys')
    .set({ scopes })
    .where('id', '=', keyId)
    .where('agent_id', '=', agentId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
}

export function findAgentKeyInfo(db: Executor, agentId: string, keyId: string) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'agent_id', 'name', 'key_hint', 'created_at', 'last_used_at', 'revoked_at', 'scopes'])
    .where('id', '=', keyId)
    .where('agent_id', '=', agentId)
    .executeTakeFirst();
}
