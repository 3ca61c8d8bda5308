import { sql } from 'kysely';
import type { ApprovalStatus } from '../schema.js';
import type { ApprovalRow, Executor, Position } from './executor.js';
import { olderThan } from './pagination.js';

export async function insertApproval(db: Executor, row: ApprovalRow): Promise<void> {
  await db.insertInto('approvals').values(row).execute();
}

export function findApproval(db: Executor, id: string): Promise<ApprovalRow | undefined> {
  return db.selectFrom('approvals').selectAll().where('id', '=', id).executeTakeFirst();
}

/** An agent's approvals, newest first, optionally of one status. */
export function listAgentApprovals(
  db: Executor,
  agentId: string,
  status: ApprovalStatus | undefined,
  after: Position | null,
  limit: number,
) {
  let query = db.selectFrom('approvals').selectAll().where('agent_id', '=', agentId);
  if (status) query = query.where('status', '=', status);
  if (after) query = query.where(olderThan(after));
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/**
 * An owner's approvals with their agent's name and the posting key's name and hint (the
 * console's list says which agent and which key asked).
 */
function ownerApprovals(db: Executor, ownerId: string) {
  return db
    .selectFrom('approvals')
    .innerJoin('agents', 'agents.id', 'approvals.agent_id')
    .leftJoin('api_keys', 'api_keys.id', 'approvals.api_key_id')
    .selectAll('approvals')
    .select(['agents.name as agent_name', 'api_keys.name as key_name', 'api_keys.key_hint as key_hint'])
    .where('agents.owner_id', '=', ownerId);
}

/**
 * The pending approvals of an owner's agents whose time is not up at `now`, oldest first (the
 * console's queue): one past its time can no longer be approved, even before the expiry job ran.
 */
export function listOwnerPendingApprovals(db: Executor, ownerId: string, now: string, limit: number) {
  return ownerApprovals(db, ownerId)
    .where('approvals.status', '=', 'PENDING')
    .where('approvals.expires_at', '>', now)
    .orderBy('approvals.created_at', 'asc')
    .orderBy('approvals.id', 'asc')
    .limit(limit)
    .execute();
}

/**
 * The owner's approvals that are no longer waiting, most recently closed first: decided ones (by
 * when) and pending ones whose time was up at `now` (by when it was up), which the expiry job may
 * not have reached yet.
 */
export function listOwnerClosedApprovals(db: Executor, ownerId: string, now: string, limit: number) {
  return ownerApprovals(db, ownerId)
    .where((eb) => eb.or([eb('approvals.status', '!=', 'PENDING'), eb('approvals.expires_at', '<=', now)]))
    .orderBy(sql`coalesce(approvals.decided_at, approvals.expires_at)`, 'desc')
    .orderBy('approvals.id', 'desc')
    .limit(limit)
    .execute();
}

/** Pending approvals whose time is up (the expiry job), oldest first. */
export function listDueApprovals(db: Executor, now: string, limit: number) {
  return db
    .selectFrom('approvals')
    .select(['id'])
    .where('status', '=', 'PENDING')
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/**
 * The one move out of PENDING: a compare-and-set on the status (and, unless it expires it, on
 * the time left), so of two approves, or an approve and the expiry job, exactly one changes the
 * row. Returns the row as changed, or undefined when it was no longer pending (or its time was up).
 */
export function decideApproval(
  db: Executor,
  id: string,
  change: {
    status: Exclude<ApprovalStatus, 'PENDING'>;
    taskId?: string;
    failure?: { message: string; status: number };
  },
  now: string,
) {
  let query = db
    .updateTable('approvals')
    .set({
      status: change.status,
      task_id: change.taskId ?? null,
      failure: change.failure?.message ?? null,
      failure_status: change.failure?.status ?? null,
      decided_at: now,
      updated_at: now,
    })
    .where('id', '=', id)
    .where('status', '=', 'PENDING');
  query =
    change.status === 'EXPIRED' ? query.where('expires_at', '<=', now) : query.where('expires_at', '>', now);
  return query.returningAll().executeTakeFirst();
}
