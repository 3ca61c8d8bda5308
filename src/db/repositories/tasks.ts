import type { ExpressionBuilder, Updateable } from 'kysely';
import {
  type ApplicationStatus,
  type PaymentStatus,
  TASK_MOVES,
  type TaskMove,
  type TaskStatus,
  WORKING_STATUSES,
} from '../../domain/tasks/states.js';
import { compiledInsert, compiledOnce } from '../compiledQuery.js';
import type { Database } from '../schema.js';
import { isBatchCardFor } from './batchPlaces.js';
import type { Executor, Position, TaskRow } from './executor.js';
import { olderThan } from './pagination.js';
import { notBlockedBy } from './workerProtection.js';

const insertTaskRow = compiledInsert('tasks');

/**
 * Workers see a task only when screening held nothing, or an operator approved it (migration
 * 0033): a held (PENDING) or rejected task is in no worker's list, and no worker can move it.
 * Nor a test task (test mode, migration 0042): its agent is a test twin, which real people never see.
 */
export const visibleToWorkers = (eb: ExpressionBuilder<Database, 'tasks'>) =>
  eb.and([
    eb.or([eb('tasks.moderation_status', 'is', null), eb('tasks.moderation_status', '=', 'APPROVED')]),
    eb.exists(
      eb
        .selectFrom('agents as owner')
        .select('owner.id')
        .whereRef('owner.id', '=', 'tasks.agent_id')
        .where('owner.livemode', '=', 1),
    ),
  ]);

/** The moves only a worker's side starts: never on a task workers may not see. */
const WORKER_SIDE_MOVES: readonly TaskMove[] = ['acceptApplication', 'acceptOffer', 'declineOffer'];

export function insertTask(db: Executor, row: TaskRow): Promise<void> {
  return insertTaskRow(db, row);
}

const selectTask = compiledOnce((db: Executor, id: string) =>
  db.selectFrom('tasks').selectAll().where('id', '=', id),
);

/** Exported for bench/readFloor.ts, which runs this statement's SQL without the app around it. */
export const taskWithAgentNameQuery = (db: Executor, id: string) =>
  db
    .selectFrom('tasks')
    .innerJoin('agents', 'agents.id', 'tasks.agent_id')
    .selectAll('tasks')
    .select(['agents.name as agent_name', 'agents.livemode as agent_livemode'])
    .where('tasks.id', '=', id);

const selectTaskWithAgentName = compiledOnce(taskWithAgentNameQuery);

/** The task and its agent's display name in one statement (GET /tasks/:id shows both). */
export async function findTaskWithAgentName(
  db: Executor,
  id: string,
): Promise<(TaskRow & { agent_name: string | null; agent_livemode: number }) | undefined> {
  return (await selectTaskWithAgentName(db, id))[0];
}

export async function findTask(db: Executor, id: string): Promise<TaskRow | undefined> {
  return (await selectTask(db, id))[0];
}

/**
 * Compare-and-set: applies `move` only when the task is still in one of the move's `from`
 * statuses (and, when given, still held by `workerId`). Returns the updated row, or undefined
 * when another request changed the task first.
 *
 * A task with an open dispute moves only by that dispute's resolution (`disputeId`): every other
 * move requires `dispute_id` null, so completion, refunds, expiry and the review clock all stop
 * while an operator judges (a resolved dispute leaves the task COMPLETED or CANCELLED, where no
 * move starts).
 */
export function moveTask(
  db: Executor,
  id: string,
  move: TaskMove,
  set: Omit<Updateable<Database['tasks']>, 'status' | 'id'>,
  guard: {
    workerId?: string;
    /** Only while no work was submitted (refund, DELETE): a column of the row, so PostgreSQL rechecks it. */
    noSubmission?: boolean;
    /** Only when the review deadline is at or before this time (auto-release). */
    reviewDueBy?: string;
    /** Only while fewer revisions than this were asked for. */
    revisionsBelow?: number;
    /** The open dispute whose resolution this is; without it the task must have no dispute. */
    disputeId?: string;
    /**
     * The graded approval's offer the caller read (null: none): a move that pays it, or pays in
     * full because none was made, must not pay a different one made meanwhile.
     */
    partialOffer?: bigint | null;
    /**
     * A counter to add one to, in SQL: on PostgreSQL another move may have changed the row since
     * the caller read it, and a count computed from that read would be stale.
     */
    increment?: 'submission_count' | 'revision_count';
    /** Only while the task waits for an operator's screening decision (a rejection). */
    moderationPending?: boolean;
  } = {},
): Promise<TaskRow | undefined> {
  let query = db
    .updateTable('tasks')
    .set({ ...set, status: TASK_MOVES[move].to })
    .where('id', '=', id)
    .where('status', 'in', TASK_MOVES[move].from);
  const counter = guard.increment;
  if (counter) query = query.set((eb) => ({ [counter]: eb(counter, '+', 1) }));
  if (guard.workerId) query = query.where('worker_id', '=', guard.workerId);
  if (WORKER_SIDE_MOVES.includes(move)) query = query.where(visibleToWorkers);
  if (guard.moderationPending) query = query.where('moderation_status', '=', 'PENDING');
  if (guard.noSubmission) query = query.where('submission_count', '=', 0);
  if (guard.reviewDueBy) query = query.where('review_deadline', '<=', guard.reviewDueBy);
  if (guard.revisionsBelow !== undefined) query = query.where('revision_count', '<', guard.revisionsBelow);
  if (guard.partialOffer !== undefined) {
    query =
      guard.partialOffer === null
        ? query.where('partial_offer_nano', 'is', null)
        : query.where('partial_offer_nano', '=', guard.partialOffer);
  }
  query = guard.disputeId
    ? query.where('dispute_id', '=', guard.disputeId)
    : query.where('dispute_id', 'is', null);
  return query.returningAll().executeTakeFirst();
}

/** Compare-and-set between two explicit statuses (work-status moves); never while a dispute is open. */
export function setWorkStatus(
  db: Executor,
  id: string,
  from: TaskStatus,
  to: TaskStatus,
  now: string,
): Promise<TaskRow | undefined> {
  return db
    .updateTable('tasks')
    .set({ status: to, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', from)
    .where('dispute_id', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

export function setExecutionDeadlineDays(db: Executor, id: string, days: number, now: string) {
  return db
    .updateTable('tasks')
    .set({ execution_deadline_days: days, updated_at: now })
    .where('id', '=', id)
    .where('status', 'in', ['OPEN', 'FUNDED'])
    .where('deadline', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

export interface TaskFilter {
  status?: TaskStatus;
  paymentStatus?: PaymentStatus;
  batchId?: string;
}

export function listAgentTasks(
  db: Executor,
  agentId: string,
  filter: TaskFilter,
  after: Position | null,
  limit: number,
): Promise<TaskRow[]> {
  let query = db.selectFrom('tasks').selectAll().where('agent_id', '=', agentId);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.paymentStatus) query = query.where('payment_status', '=', filter.paymentStatus);
  if (filter.batchId) query = query.where('batch_id', '=', filter.batchId);
  if (after) query = query.where(olderThan(after));
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** Tasks open to applicants, newest first. */
/**
 * Tasks open for applications as one worker sees them, newest first: without the tasks this worker
 * declined an offer for (declining is "not for me"; the task reopens to everyone else), with how
 * many people applied and this worker's own application, if any (the "Applied" marker).
 */
export function listOpenTasks(db: Executor, workerId: string, after: Position | null, limit: number) {
  let query = db
    .selectFrom('tasks')
    .innerJoin('agents', 'agents.id', 'tasks.agent_id')
    .selectAll('tasks')
    .select('agents.name as agent_name')
    .select((eb) => [
      applicantCount(eb).as('applicant_count'),
      ownApplication(eb, workerId).as('own_application'),
    ])
    .where('tasks.status', '=', 'FUNDED')
    .where(visibleToWorkers)
    .where(notBlockedBy(workerId))
    // A batch is one card: the task standing for it is its next open place for this worker.
    .where(isBatchCardFor(workerId))
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('applications')
            .select('applications.id')
            .whereRef('applications.task_id', '=', 'tasks.id')
            .where('applications.worker_id', '=', workerId)
            .where('applications.status', '=', 'DECLINED'),
        ),
      ),
    );
  if (after) query = query.where(olderThan(after, 'tasks'));
  return query.orderBy('tasks.created_at', 'desc').orderBy('tasks.id', 'desc').limit(limit).execute();
}

type TaskScope = ExpressionBuilder<Database & { tasks: Database['tasks'] }, 'tasks'>;

/** People who applied to the task (a declined offer is not an application any more). */
function applicantCount(eb: TaskScope) {
  return eb
    .selectFrom('applications')
    .select((sub) => sub.fn.countAll<number>().as('n'))
    .whereRef('applications.task_id', '=', 'tasks.id')
    .where('applications.status', '!=', 'DECLINED');
}

/** This worker's application to the task: its status, or null. */
function ownApplication(eb: TaskScope, workerId: string) {
  return eb
    .selectFrom('applications')
    .select('applications.status')
    .whereRef('applications.task_id', '=', 'tasks.id')
    .where('applications.worker_id', '=', workerId)
    .limit(1);
}

/** The same counts for one task (GET /worker/tasks/:id). */
export async function taskApplicantsFor(db: Executor, taskId: string, workerId: string) {
  const row = await db
    .selectFrom('tasks')
    .select((eb) => [
      applicantCount(eb).as('applicant_count'),
      ownApplication(eb, workerId).as('own_application'),
    ])
    .where('tasks.id', '=', taskId)
    .executeTakeFirst();
  return {
    applicantCount: Number(row?.applicant_count ?? 0),
    ownApplication: (row?.own_application ?? null) as ApplicationStatus | null,
  };
}

/** Direct offers waiting for this worker's answer, newest first. */
export function listOffersFor(db: Executor, workerId: string, after: Position | null, limit: number) {
  let query = db
    .selectFrom('tasks')
    .innerJoin('agents', 'agents.id', 'tasks.agent_id')
    .selectAll('tasks')
    .select('agents.name as agent_name')
    .where('tasks.status', '=', 'OFFERED')
    .where('tasks.worker_id', '=', workerId)
    .where(visibleToWorkers)
    .where(notBlockedBy(workerId));
  if (after) query = query.where(olderThan(after, 'tasks'));
  return query.orderBy('tasks.created_at', 'desc').orderBy('tasks.id', 'desc').limit(limit).execute();
}

export async function countTasksByStatus(db: Executor, agentId: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('tasks')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .where('agent_id', '=', agentId)
    .groupBy('status')
    .execute();
  return new Map(rows.map((r) => [r.status, Number(r.n)]));
}

/**
 * Locks the task row for the rest of the transaction when it is still in one of `statuses`
 * (a no-op UPDATE is the portable FOR UPDATE), so an application cannot slip in beside a
 * concurrent acceptance. Returns false when the task has left those statuses.
 */
export async function lockTaskIn(db: Executor, id: string, statuses: TaskStatus[]): Promise<boolean> {
  const row = await db
    .updateTable('tasks')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('id', '=', id)
    .where('status', 'in', statuses)
    // Only applications lock this way: a task workers may not see takes none.
    .where(visibleToWorkers)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Tasks a worker holds or held (assigned, in progress, in review, completed), newest first, and
 * the ones that ended cancelled after they were assigned (a dispute decided for the agent, the
 * agent cancelling): a worker keeps every task they worked on. An offer withdrawn before it was
 * accepted was never assigned (no assigned_at) and stays out.
 */
export function listWorkerTasks(db: Executor, workerId: string, after: Position | null, limit: number) {
  let query = db
    .selectFrom('tasks')
    .innerJoin('agents', 'agents.id', 'tasks.agent_id')
    .selectAll('tasks')
    .select('agents.name as agent_name')
    .where('tasks.worker_id', '=', workerId)
    .where((eb) =>
      eb.or([
        eb('tasks.status', 'in', ['ASSIGNED', 'IN_PROGRESS', 'REVIEW', 'COMPLETED']),
        eb.and([eb('tasks.status', '=', 'CANCELLED'), eb('tasks.assigned_at', 'is not', null)]),
      ]),
    );
  if (after) query = query.where(olderThan(after, 'tasks'));
  return query.orderBy('tasks.created_at', 'desc').orderBy('tasks.id', 'desc').limit(limit).execute();
}

/** ASSIGNED tasks whose execution deadline has passed, oldest deadline first. */
export function listOverdueAssigned(db: Executor, now: string, limit: number) {
  return db
    .selectFrom('tasks')
    .select(['id', 'worker_id'])
    .where('status', '=', 'ASSIGNED')
    .where('execution_deadline', '<=', now)
    .where('dispute_id', 'is', null)
    .orderBy('execution_deadline')
    .limit(limit)
    .execute();
}

/**
 * Compare-and-set ASSIGNED -> FUNDED for a task still held by `workerId` whose deadline is still
 * past: of two job runs that overlap, exactly one expires the task.
 */
export function expireIfOverdue(db: Executor, id: string, workerId: string, now: string) {
  return db
    .updateTable('tasks')
    .set({
      status: TASK_MOVES.expire.to,
      worker_id: null,
      execution_deadline: null,
      assigned_at: null,
      updated_at: now,
    })
    .where('id', '=', id)
    .where('status', 'in', TASK_MOVES.expire.from)
    .where('worker_id', '=', workerId)
    .where('execution_deadline', '<=', now)
    .where('dispute_id', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Opens a dispute on the task: compare-and-set on a task a worker holds with no dispute yet, so
 * of a dispute and a completion, refund, auto-release or second dispute racing, exactly one wins.
 */
export function markTaskDisputed(db: Executor, id: string, disputeId: string, now: string) {
  return (
    db
      .updateTable('tasks')
      // The review clock stops: no auto-release and no reminder while an operator judges.
      .set({ dispute_id: disputeId, review_deadline: null, review_reminder_at: null, updated_at: now })
      .where('id', '=', id)
      .where('status', 'in', WORKING_STATUSES)
      .where('dispute_id', 'is', null)
      .returningAll()
      .executeTakeFirst()
  );
}

/**
 * Compare-and-set for a graded approval's offer: only on a task in REVIEW with no dispute and no
 * offer yet. The review clock restarts for the worker's answer; the agent's reminder is dropped
 * (the agent has answered).
 */
export function recordPartialOffer(
  db: Executor,
  id: string,
  offer: { nano: bigint; reason: string; at: string; reviewDeadline: string },
) {
  return db
    .updateTable('tasks')
    .set({
      partial_offer_nano: offer.nano,
      partial_offer_reason: offer.reason,
      partial_offered_at: offer.at,
      review_deadline: offer.reviewDeadline,
      review_reminder_at: null,
      updated_at: offer.at,
    })
    .where('id', '=', id)
    .where('status', '=', 'REVIEW')
    .where('dispute_id', 'is', null)
    .where('partial_offer_nano', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** REVIEW tasks whose review window has ended, oldest deadline first (auto-release). */
export function listDueReviews(db: Executor, now: string, limit: number) {
  return db
    .selectFrom('tasks')
    .select(['id'])
    .where('status', '=', 'REVIEW')
    .where('review_deadline', '<=', now)
    .orderBy('review_deadline')
    .limit(limit)
    .execute();
}

/** REVIEW tasks whose agent is due its reminder (a quarter of the window left). */
export function listDueReminders(db: Executor, now: string, limit: number) {
  return db
    .selectFrom('tasks')
    .select(['id'])
    .where('status', '=', 'REVIEW')
    .where('review_reminder_at', '<=', now)
    .orderBy('review_reminder_at')
    .limit(limit)
    .execute();
}

/** Compare-and-set: takes the task's due reminder (clears it), so exactly one run sends it. */
export function takeDueReminder(db: Executor, id: string, now: string) {
  return db
    .updateTable('tasks')
    .set({ review_reminder_at: null })
    .where('id', '=', id)
    .where('status', '=', 'REVIEW')
    .where('review_reminder_at', '<=', now)
    .returningAll()
    .executeTakeFirst();
}
