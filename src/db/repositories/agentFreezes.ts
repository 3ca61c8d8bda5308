import type { Executor } from './executor.js';

export function findAgentFreeze(db: Executor, agentId: string) {
  return db
    .selectFrom('agent_freezes')
    .select(['agent_id', 'reason', 'frozen_at'])
    .where('agent_id', '=', agentId)
    .executeTakeFirst();
}

/** Freezes the agent unless it already is; true when this call froze it. */
export async function insertAgentFreeze(
  db: Executor,
  row: { agent_id: string; reason: string | null; frozen_at: string },
): Promise<boolean> {
  const inserted = await db
    .insertInto('agent_freezes')
    .values(row)
    .onConflict((oc) => oc.column('agent_id').doNothing())
    .returning('agent_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Unfreezes the agent; true when it was frozen. */
export async function deleteAgentFreeze(db: Executor, agentId: string): Promise<boolean> {
  const result = await db.deleteFrom('agent_freezes').where('agent_id', '=', agentId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
