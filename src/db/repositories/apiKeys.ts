import type { Executor } from './executor.js';

export async function insertApiKey(
  db: Executor,
  row: { id: string; agentId: string; hash: string; ciphertext: string; hint: string; now: string },
): Promise<void> {
  await db
    .insertInto('api_keys')
    .values({
      id: row.id,
      agent_id: row.agentId,
      key_hash: row.hash,
      key_ciphertext: row.ciphertext,
      key_hint: row.hint,
      created_at: row.now,
      revoked_at: null,
    })
    .execute();
}

/** The live key with this hash, or undefined. */
export function findLiveKeyByHash(db: Executor, hash: string) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'agent_id'])
    .where('key_hash', '=', hash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
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
