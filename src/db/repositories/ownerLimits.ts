import type { Executor } from './executor.js';

// Counts behind the limits that must hold across agents, owners and instances (domain/owners/ownerLimits.ts).
// Every list is of creation times, oldest first, so the caller can say when the window frees up.

/** Locks the owner's row until the transaction ends (a no-op UPDATE is the portable FOR UPDATE). */
export async function lockOwner(db: Executor, ownerId: string): Promise<void> {
  await db
    .updateTable('owners')
    .set((eb) => ({ last_sign_in_at: eb.ref('last_sign_in_at') }))
    .where('id', '=', ownerId)
    .execute();
}

/** Locks the worker's row until the transaction ends, so offers to them are counted one at a time. */
export async function lockWorker(db: Executor, workerId: string): Promise<void> {
  await db
    .updateTable('workers')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('id', '=', workerId)
    .execute();
}

export async function agentsCreatedSince(db: Executor, ownerId: string, since: string): Promise<string[]> {
  const rows = await db
    .selectFrom('agents')
    .select('created_at')
    .where('owner_id', '=', ownerId)
    .where('created_at', '>', since)
    .orderBy('created_at')
    .execute();
  return rows.map((r) => r.created_at);
}

/** Keys made for the owner's agents, revoked ones included. */
export async function keysCreatedSince(db: Executor, ownerId: string, since: string): Promise<string[]> {
  const rows = await db
    .selectFrom('api_keys')
    .innerJoin('agents', 'agents.id', 'api_keys.agent_id')
    .select('api_keys.created_at')
    .where('agents.owner_id', '=', ownerId)
    .where('api_keys.created_at', '>', since)
    .orderBy('api_keys.created_at')
    .execute();
  return rows.map((r) => r.created_at);
}

/** Direct offers a worker got since then: from anyone, or from the agents of one owner. */
export async function offersToWorkerSince(
  db: Executor,
  workerId: string,
  since: string,
  fromOwnerId?: string,
): Promise<string[]> {
  let query = db
    .selectFrom('notifications as n')
    .select('n.created_at')
    .where('n.worker_id', '=', workerId)
    .where('n.kind', '=', 'offer')
    .where('n.created_at', '>', since);
  if (fromOwnerId !== undefined) {
    query = query
      .innerJoin('tasks as t', 't.id', 'n.task_id')
      .innerJoin('agents as a', 'a.id', 't.agent_id')
      .where('a.owner_id', '=', fromOwnerId);
  }
  const rows = await query.orderBy('n.created_at').execute();
  return rows.map((r) => r.created_at);
}

export async function faucetGrantsSince(db: Executor, ownerId: string, since: string) {
  return db
    .selectFrom('faucet_grants')
    .select(['amount_nano', 'created_at'])
    .where('owner_id', '=', ownerId)
    .where('created_at', '>', since)
    .orderBy('created_at')
    .execute();
}

export async function insertFaucetGrant(
  db: Executor,
  row: { id: string; ownerId: string; agentId: string; amountNano: bigint; now: string },
): Promise<void> {
  await db
    .insertInto('faucet_grants')
    .values({
      id: row.id,
      owner_id: row.ownerId,
      agent_id: row.agentId,
      amount_nano: row.amountNano,
      created_at: row.now,
    })
    .execute();
}

export async function deleteFaucetGrant(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('faucet_grants').where('id', '=', id).execute();
}
