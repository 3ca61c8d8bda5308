import { sql } from 'kysely';
import type { TaskStatus } from '../../domain/tasks/states.js';
import type { DisputeParty, SubmissionStatus } from '../schema.js';
import type { DisputeRow, DisputeStatementRow, Executor, MessageRow, Position } from './executor.js';

export async function insertDispute(db: Executor, row: DisputeRow): Promise<void> {
  await db.insertInto('disputes').values(row).execute();
}

export function findDispute(db: Executor, id: string): Promise<DisputeRow | undefined> {
  return db.selectFrom('disputes').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findDisputeOfTask(db: Executor, taskId: string): Promise<DisputeRow | undefined> {
  return db.selectFrom('disputes').selectAll().where('task_id', '=', taskId).executeTakeFirst();
}

/** A dispute's statements in the order they were made. */
export function listStatements(db: Executor, disputeId: string): Promise<DisputeStatementRow[]> {
  return db
    .selectFrom('dispute_statements')
    .selectAll()
    .where('dispute_id', '=', disputeId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function insertStatement(db: Executor, row: DisputeStatementRow): Promise<void> {
  await db.insertInto('dispute_statements').values(row).execute();
}

/**
 * Locks an open dispute's row for the rest of the transaction (a no-op UPDATE is the portable
 * FOR UPDATE) and returns it, or undefined once resolved: statements of one side are counted
 * under this lock, so two at once cannot both slip under the limit, nor in beside a resolution.
 */
export function lockOpenDispute(db: Executor, id: string, now: string): Promise<DisputeRow | undefined> {
  return db
    .updateTable('disputes')
    .set({ updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'OPEN')
    .returningAll()
    .executeTakeFirst();
}

export async function countStatementsBy(
  db: Executor,
  disputeId: string,
  author: DisputeParty,
): Promise<number> {
  const row = await db
    .selectFrom('dispute_statements')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('dispute_id', '=', disputeId)
    .where('author', '=', author)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Compare-and-set OPEN -> RESOLVED with the split: of two resolutions at once, one wins. */
export function markDisputeResolved(
  db: Executor,
  id: string,
  split: { workerNano: bigint; feeNano: bigint; agentNano: bigint; note: string | null },
  now: string,
): Promise<DisputeRow | undefined> {
  return db
    .updateTable('disputes')
    .set({
      status: 'RESOLVED',
      worker_amount_nano: split.workerNano,
      fee_amount_nano: split.feeNano,
      agent_amount_nano: split.agentNano,
      note: split.note,
      resolved_at: now,
      updated_at: now,
    })
    .where('id', '=', id)
    .where('status', '=', 'OPEN')
    .returningAll()
    .executeTakeFirst();
}

/** The operators' queue row: the dispute with its task's, agent's and worker's labels. */
export interface QueueRow extends DisputeRow {
  task_title: string;
  task_status: TaskStatus;
  reward_nano: bigint;
  fee_nano: bigint;
  total_nano: bigint;
  agent_name: string | null;
  worker_first_name: string;
  worker_username: string | null;
}

/** Disputes in `status`, oldest first (keyset on created_at, id). */
export function listDisputeQueue(
  db: Executor,
  status: DisputeRow['status'],
  after: Position | null,
  limit: number,
): Promise<QueueRow[]> {
  let query = db
    .selectFrom('disputes as d')
    .innerJoin('tasks as t', 't.id', 'd.task_id')
    .innerJoin('agents as a', 'a.id', 'd.agent_id')
    .innerJoin('workers as w', 'w.id', 'd.worker_id')
    .selectAll('d')
    .select([
      't.title as task_title',
      't.status as task_status',
      't.reward_nano as reward_nano',
      't.fee_nano as fee_nano',
      't.total_nano as total_nano',
      'a.name as agent_name',
      'w.first_name as worker_first_name',
      'w.username as worker_username',
    ])
    .where('d.status', '=', status);
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb('d.created_at', '>', after.createdAt),
        eb.and([eb('d.created_at', '=', after.createdAt), eb('d.id', '>', after.id)]),
      ]),
    );
  }
  return query.orderBy('d.created_at').orderBy('d.id').limit(limit).execute();
}

/**
 * Disputes each agent lost: resolved with any payment to the worker (docs/decisions/disputes.md: an operator who pays the worker anything found the agent's refusal at least partly
 * wrong). One grouped query over the (agent_id, status) index.
 */
export async function countDisputesLostBy(db: Executor, agentIds: string[]): Promise<Map<string, number>> {
  if (agentIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('disputes')
    .select(['agent_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('agent_id', 'in', agentIds)
    .where('status', '=', 'RESOLVED')
    .where('worker_amount_nano', '>', sql<bigint>`0`)
    .groupBy('agent_id')
    .execute();
  return new Map(rows.map((r) => [r.agent_id, Number(r.n)]));
}

/** Every chat message of a task (all its assignments' chats), newest first: the operator's read. */
export function listTaskMessagesNewest(db: Executor, taskId: string, limit: number): Promise<MessageRow[]> {
  return (
    db
      .selectFrom('messages')
      .selectAll()
      // Through the task's chats: messages are indexed by chat, not by task.
      .where('chat_id', 'in', (eb) => eb.selectFrom('chats').select('id').where('task_id', '=', taskId))
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute()
  );
}

/**
 * Compare-and-set on the disputed submission: still in the status the dispute was judged on, it
 * becomes DISPUTED (a revision request or approval racing the dispute changes it first, and the
 * dispute's transaction then fails). A waiting submission counts as decided now.
 */
export async function markSubmissionDisputed(
  db: Executor,
  id: string,
  from: SubmissionStatus,
  now: string,
): Promise<boolean> {
  const row = await db
    .updateTable('submissions')
    .set((eb) => ({
      status: 'DISPUTED',
      decided_at: from === 'PENDING' ? now : eb.ref('decided_at'),
      updated_at: now,
    }))
    .where('id', '=', id)
    .where('status', '=', from)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}
