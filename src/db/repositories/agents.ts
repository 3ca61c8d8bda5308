import { sql } from 'kysely';
import { compiledOnce } from '../compiledQuery.js';
import type { AgentRow, Executor } from './executor.js';

export async function insertAgent(
  db: Executor,
  row: { id: string; name: string | null; now: string; ownerId?: string | null; liveAgentId?: string },
) {
  await db
    .insertInto('agents')
    .values({
      id: row.id,
      name: row.name,
      webhook_url: null,
      owner_id: row.ownerId ?? null,
      // A test twin (migration 0042) names its live agent; a live agent names none.
      ...(row.liveAgentId ? { livemode: 0, live_agent_id: row.liveAgentId } : {}),
      created_at: row.now,
      updated_at: row.now,
    })
    .execute();
}

const selectAgent = compiledOnce((db: Executor, id: string) =>
  db.selectFrom('agents').selectAll().where('id', '=', id),
);

export async function findAgent(db: Executor, id: string): Promise<AgentRow | undefined> {
  return (await selectAgent(db, id))[0];
}

/** The test twin of a live agent (migration 0042), when it has one yet. */
export function findTestTwin(db: Executor, liveAgentId: string): Promise<AgentRow | undefined> {
  return db.selectFrom('agents').selectAll().where('live_agent_id', '=', liveAgentId).executeTakeFirst();
}

/** An owner's agents, newest first. */
export function listOwnerAgents(db: Executor, ownerId: string, limit: number): Promise<AgentRow[]> {
  return db
    .selectFrom('agents')
    .selectAll()
    .where('owner_id', '=', ownerId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export async function countOwnerAgents(db: Executor, ownerId: string): Promise<number> {
  const row = await db
    .selectFrom('agents')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('owner_id', '=', ownerId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function updateAgentProfile(
  db: Executor,
  id: string,
  patch: { name?: string; webhook_url?: string | null },
  now: string,
): Promise<AgentRow | undefined> {
  return db
    .updateTable('agents')
    .set({ ...patch, updated_at: now })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function addAgentRating(db: Executor, id: string, score: number): Promise<void> {
  await db
    .updateTable('agents')
    .set({ rating_sum: sql`rating_sum + ${score}`, rating_count: sql`rating_count + 1` })
    .where('id', '=', id)
    .execute();
}

export async function countAgentTasks(db: Executor, agentId: string): Promise<number> {
  const row = await db
    .selectFrom('tasks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('agent_id', '=', agentId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
