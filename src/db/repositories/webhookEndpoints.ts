import { PostgresAdapter, type Selectable, sql } from 'kysely';
import type { Database } from '../schema.js';
import type { DeliveryRow, Executor } from './executor.js';

export type EndpointRow = Selectable<Database['webhook_endpoints']>;

/** What a claim may take: the caps in force, read by the claim under its locks. */
export interface InFlightCaps {
  perAgent: number;
  perOrigin: number;
}

export type DueDelivery = DeliveryRow & {
  event_type: string;
  event_data_json: string;
  event_created_at: string;
};

/**
 * Due deliveries, fairly: none of an endpoint in quarantine, none of an agent or an endpoint
 * already at its in-flight cap (counted from the rows in flight, so across every instance), and
 * at most `perAgent` of any one agent, taken in turn (every agent's oldest first, then every
 * agent's second...), so one agent's backlog cannot fill the batch.
 */
export async function listDueDeliveriesFairly(
  db: Executor,
  now: string,
  limit: number,
  caps: InFlightCaps,
): Promise<DueDelivery[]> {
  const { rows } = await sql<DueDelivery & { fair_rank: number }>`
    select d.*, e.type as event_type, e.data_json as event_data_json, e.created_at as event_created_at
    from (
      select w.*, row_number() over (partition by w.agent_id order by w.next_attempt_at, w.id) as fair_rank
      from webhook_deliveries w
      where w.status = 'pending' and w.next_attempt_at <= ${now}
        and not exists (
          select 1 from webhook_endpoints q
          where q.agent_id = w.agent_id and q.origin = w.origin and q.quarantined_until > ${now})
        and w.agent_id not in (
          select f.agent_id from webhook_deliveries f where f.claimed_until > ${now}
          group by f.agent_id having count(*) >= ${caps.perAgent})
        and coalesce(w.origin, '') not in (
          select f.origin from webhook_deliveries f where f.claimed_until > ${now} and f.origin is not null
          group by f.origin having count(*) >= ${caps.perOrigin})
    ) d
    join events e on e.id = d.event_id
    where d.fair_rank <= ${caps.perAgent}
    order by d.fair_rank, d.next_attempt_at, d.id
    limit ${limit}`.execute(db);
  return rows;
}

/**
 * On PostgreSQL, serializes the claims of one agent and of one endpoint among every instance
 * until the transaction ends, so the count a claim reads cannot be raced past its cap by a
 * concurrent claim (READ COMMITTED would let both see the count below it). Always the agent's
 * lock first, then the endpoint's: no two claims can wait for each other in a cycle. SQLite
 * needs none: its writes are serialized already.
 */
export async function lockClaims(trx: Executor, agentId: string, origin: string): Promise<void> {
  if (!(trx.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`select pg_advisory_xact_lock(hashtext(${`webhook agent ${agentId}`}))`.execute(trx);
  await sql`select pg_advisory_xact_lock(hashtext(${`webhook origin ${origin}`}))`.execute(trx);
}

/** Deliveries in flight now: of the agent, to the origin (any agent), and to the agent's endpoint. */
export async function countInFlight(db: Executor, agentId: string, origin: string, now: string) {
  const count = (column: 'agent_id' | 'origin', value: string, alsoOrigin?: string) => {
    let query = db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where(column, '=', value)
      .where('claimed_until', '>', now);
    if (alsoOrigin) query = query.where('origin', '=', alsoOrigin);
    return query.executeTakeFirstOrThrow().then((row) => Number(row.n));
  };
  const [agent, toOrigin, endpoint] = await Promise.all([
    count('agent_id', agentId),
    count('origin', origin),
    count('agent_id', agentId, origin),
  ]);
  return { agent, origin: toOrigin, endpoint };
}

/**
 * Claims a listed delivery for one attempt: compare-and-set on what was listed (as
 * `claimDue`, and only when due at `now`), also marking it in flight until the lease ends.
 */
export async function claimDelivery(
  db: Executor,
  id: string,
  listed: { nextAttemptAt: string; attempts: number },
  leaseUntil: string,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: leaseUntil, claimed_until: leaseUntil, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '=', listed.nextAttemptAt)
    .where('next_attempt_at', '<=', now)
    .where('attempts', '=', listed.attempts)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export function findEndpoint(db: Executor, agentId: string, origin: string) {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('agent_id', '=', agentId)
    .where('origin', '=', origin)
    .executeTakeFirst();
}

/** Counts one more attempt in a row without an answer; returns the endpoint as it is now. */
export function recordTimeout(
  db: Executor,
  agentId: string,
  origin: string,
  error: string,
  now: string,
): Promise<EndpointRow> {
  return db
    .insertInto('webhook_endpoints')
    .values({
      agent_id: agentId,
      origin,
      consecutive_timeouts: 1,
      quarantines: 0,
      quarantined_until: null,
      last_error: error,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.columns(['agent_id', 'origin']).doUpdateSet({
        consecutive_timeouts: sql<number>`webhook_endpoints.consecutive_timeouts + 1`,
        last_error: error,
        updated_at: now,
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Puts the endpoint in quarantine until `until`, once: a compare-and-set on the quarantine count
 * the caller read, and only while not in quarantine already (several attempts time out together).
 * Returns the endpoint when this call started the quarantine.
 */
export function startQuarantine(
  db: Executor,
  seen: Pick<EndpointRow, 'agent_id' | 'origin' | 'quarantines'>,
  until: string,
  now: string,
): Promise<EndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set({ quarantined_until: until, quarantines: seen.quarantines + 1, updated_at: now })
    .where('agent_id', '=', seen.agent_id)
    .where('origin', '=', seen.origin)
    .where('quarantines', '=', seen.quarantines)
    .where((eb) => eb.or([eb('quarantined_until', 'is', null), eb('quarantined_until', '<=', now)]))
    .returningAll()
    .executeTakeFirst();
}

/** The endpoint answered: healthy again (a no-op, one index look-up, for the usual endpoint). */
export async function recordAnswer(db: Executor, agentId: string, origin: string, now: string) {
  await db
    .updateTable('webhook_endpoints')
    .set({ consecutive_timeouts: 0, quarantines: 0, quarantined_until: null, updated_at: now })
    .where('agent_id', '=', agentId)
    .where('origin', '=', origin)
    .where((eb) => eb.or([eb('consecutive_timeouts', '>', 0), eb('quarantines', '>', 0)]))
    .execute();
}

/** The agent's endpoints with a record, most recently changed first, with their pending deliveries. */
export function listAgentEndpoints(db: Executor, agentId: string, limit: number) {
  return db
    .selectFrom('webhook_endpoints as q')
    .selectAll('q')
    .select((eb) =>
      eb
        .selectFrom('webhook_deliveries as d')
        .select((c) => c.fn.countAll<number>().as('n'))
        .whereRef('d.agent_id', '=', 'q.agent_id')
        .whereRef('d.origin', '=', 'q.origin')
        .where('d.status', '=', 'pending')
        .as('pending_deliveries'),
    )
    .where('q.agent_id', '=', agentId)
    .orderBy('q.updated_at', 'desc')
    .orderBy('q.origin')
    .limit(limit)
    .execute();
}

/**
 * Ends the agent's quarantines now (all, or the one origin's). The count of quarantines stays,
 * so the endpoint is probed with one delivery before it gets its full share again.
 */
export function endQuarantines(db: Executor, agentId: string, origin: string | undefined, now: string) {
  let query = db
    .updateTable('webhook_endpoints')
    .set({ quarantined_until: null, consecutive_timeouts: 0, updated_at: now })
    .where('agent_id', '=', agentId)
    .where('quarantined_until', '>', now);
  if (origin !== undefined) query = query.where('origin', '=', origin);
  return query.executeTakeFirst();
}
