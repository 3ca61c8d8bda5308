import { Type } from 'typebox';
import { isApproval, type PostedTask, postTask } from '../domain/agents/approvals.js';
import { amountText } from '../domain/money/currency.js';
import { acceptApplication, listApplications } from '../domain/tasks/applications.js';
import { cancelTask } from '../domain/tasks/cancellation.js';
import {
  getAgentTask,
  listTasksOfAgent,
  taskParties,
  taskPartiesForPage,
} from '../domain/tasks/taskQueries.js';
import { patchAgentTask } from '../domain/tasks/taskStatus.js';
import { type Grading, gradeTask } from '../domain/trust/partialPayment.js';
import { getTaskRatings, rateWorker } from '../domain/trust/ratings.js';
import { approvalView } from '../http/approvalViews.js';
import { disputeOrNull } from '../http/disputeViews.js';
import { pageView } from '../http/pageView.js';
import { CompleteResult, PartialOfferResult } from '../http/schemas/task.js';
import {
  acceptedView,
  applicationView,
  cancelView,
  createdTaskView,
  gradingView,
  ratingView,
  taskView,
} from '../http/views.js';
import { READ_ONLY, type ToolDef, writes } from './tool.js';

const TASK_ID = { id: 'taskId' };

/** Tasks, applications and ratings: the tools of a task's life. */
export const taskTools: ToolDef[] = [
  {
    name: 'create_task',
    title: 'Create a task',
    description:
      'Post a task for human workers; reward + 30% fee is escrowed from your balance at once. ' +
      'assignToUserId: a direct offer (search_workers). Amounts are decimal strings ("6.5"). ' +
      'Without idempotencyKey a repeat escrows a second task. ' +
      "Above your key's approvalAbove: a PENDING approval for your owner, nothing escrowed.",
    route: 'POST /tasks',
    keyed: { view: postedView },
    annotations: writes({ destructive: false, idempotent: false }),
    run: (env, args) => postTask(env.ctx, env.agentId, args as never, env.apiKey?.keyId ?? null),
  },
  {
    name: 'get_task',
    title: 'Get a task',
    description: 'One of your tasks with its status, payment status, worker and newest 100 applications.',
    route: 'GET /tasks/:id',
    rename: TASK_ID,
    annotations: READ_ONLY,
    run: async (env, args) => {
      const { task, applications, owner, worker, submission, dispute } = await getAgentTask(
        env.ctx,
        env.agentId,
        args.taskId,
      );
      return {
        task: taskView(
          task,
          owner,
          worker,
          applications.map(applicationView),
          submission,
          disputeOrNull(dispute),
        ),
      };
    },
  },
  {
    name: 'list_tasks',
    title: 'List your tasks',
    description: 'Your tasks, newest first, filtered by status or payment status; pass nextCursor for more.',
    route: 'GET /agents/tasks',
    annotations: READ_ONLY,
    run: async (env, args) => {
      const result = await listTasksOfAgent(env.ctx, env.agentId, args as never);
      const parties = await taskPartiesForPage(env.ctx.db, env.agentId, result.items);
      return pageView(result, 'tasks', (t) => taskView(t, parties.owner, parties.workerOf(t.worker_id)));
    },
  },
  {
    name: 'update_task_status',
    title: 'Update a task',
    description:
      'Move an assigned task to IN_PROGRESS or REVIEW, or change executionDeadlineDays of an unassigned task.',
    route: 'PATCH /tasks/:id',
    rename: TASK_ID,
    // A status only moves forward, and a new deadline replaces the old one.
    annotations: writes({ destructive: true, idempotent: true }),
    run: async (env, args) => {
      const { taskId, ...patch } = args;
      const task = await patchAgentTask(env.ctx, env.agentId, taskId, patch);
      const parties = await taskParties(env.ctx.db, task);
      return { task: taskView(task, parties.owner, parties.worker) };
    },
  },
  {
    name: 'complete_task',
    title: 'Approve the work and pay',
    description:
      'Approve the PENDING submission and complete the task: the reward goes to the worker’s wallet on ' +
      'chain. Irreversible; safe to retry (a task pays once). amount below the reward, with a reason: a ' +
      'partialOffer instead (see amount).',
    route: 'POST /tasks/:id/complete',
    rename: TASK_ID,
    output: Type.Union([CompleteResult, PartialOfferResult]),
    keyed: { view: (graded: Grading) => gradingView(graded).body },
    annotations: writes({ destructive: true, idempotent: true, openWorld: true }),
    run: (env, args) =>
      gradeTask(env.ctx, env.agentId, args.taskId, { amount: args.amount, reason: args.reason }),
  },
  {
    name: 'cancel_task',
    title: 'Cancel an unassigned task',
    description:
      'Cancel a task nobody is assigned to (OPEN, FUNDED or OFFERED; else refund_task); its total returns ' +
      'to your balance. Safe to retry: a repeat is refused (CANCELLED).',
    route: 'DELETE /tasks/:id',
    rename: TASK_ID,
    keyed: { view: (r: Awaited<ReturnType<typeof cancelTask>>) => cancelView(r.task, r.refundNano) },
    annotations: writes({ destructive: true, idempotent: true }),
    run: (env, args) => cancelTask(env.ctx, env.agentId, args.taskId, 'delete'),
  },
  {
    name: 'refund_task',
    title: 'Refund a task',
    description:
      'Cancel any task that is not completed, assigned or not; its total returns to your balance. Safe to ' +
      'retry: a repeat is refused (CANCELLED).',
    route: 'POST /tasks/:id/refund',
    rename: TASK_ID,
    keyed: { view: (r: Awaited<ReturnType<typeof cancelTask>>) => cancelView(r.task, r.refundNano) },
    annotations: writes({ destructive: true, idempotent: true }),
    run: (env, args) => cancelTask(env.ctx, env.agentId, args.taskId, 'refund', args.reason),
  },
  {
    name: 'list_applications',
    title: 'List applications',
    description: 'Workers’ applications to your task, newest first; accept one with accept_application.',
    route: 'GET /tasks/:id/applications',
    rename: TASK_ID,
    annotations: READ_ONLY,
    run: async (env, args) => {
      const { taskId, ...query } = args;
      const result = await listApplications(env.ctx, env.agentId, taskId, query as never);
      return pageView(result, 'applications', applicationView);
    },
  },
  {
    name: 'accept_application',
    title: 'Accept an application',
    description:
      'Assign the task to this applicant: a chat opens and the other pending applications are rejected. ' +
      'Safe to retry: a repeat is refused (no longer PENDING).',
    route: 'PATCH /applications/:id',
    rename: { id: 'applicationId' },
    omit: ['status'],
    keyed: { view: acceptedView },
    annotations: writes({ destructive: true, idempotent: true }),
    run: (env, args) => acceptApplication(env.ctx, env.agentId, args.applicationId),
  },
  {
    name: 'rate_worker',
    title: 'Rate the worker',
    description:
      'Rate the worker of your completed task from 1 to 5, with an optional comment; once per task.',
    route: 'POST /tasks/:id/rate',
    rename: TASK_ID,
    keyed: { view: (r: Awaited<ReturnType<typeof rateWorker>>) => ({ rating: ratingView(r) }) },
    annotations: writes({ destructive: false, idempotent: true }),
    run: (env, args) => {
      const { taskId, ...input } = args;
      return rateWorker(env.ctx, env.agentId, taskId, input as never);
    },
  },
  {
    name: 'get_task_ratings',
    title: 'Get a task’s ratings',
    description: 'Both sides’ ratings of your task; null for a side that has not rated yet.',
    route: 'GET /tasks/:id/ratings',
    rename: TASK_ID,
    annotations: READ_ONLY,
    run: async (env, args) => {
      const { agentRating, workerRating } = await getTaskRatings(env.ctx, env.agentId, args.taskId);
      return {
        agentRating: agentRating ? ratingView(agentRating) : null,
        workerRating: workerRating ? ratingView(workerRating) : null,
      };
    },
  },
];

/** create_task's result: the task, or the approval it waits for, with a sentence the model can pass on. */
function postedView(posted: PostedTask): Record<string, unknown> {
  if (!isApproval(posted)) return createdTaskView(posted);
  const approval = approvalView(posted.approval);
  return {
    approval,
    message: `Not created yet: its total ${amountText(posted.approval.currency, posted.approval.amount_nano)} is above this key's approvalAbove, so it waits for your owner's approval until ${approval.expiresAt}; nothing is escrowed. Tell the user; approval.approved (with the taskId) or approval.declined/expired/failed follows.`,
  };
}
