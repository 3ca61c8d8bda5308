import { acceptApplication, listApplications } from '../domain/applications.js';
import { cancelTask } from '../domain/cancellation.js';
import { completeTask } from '../domain/completion.js';
import { getTaskRatings, rateWorker } from '../domain/ratings.js';
import { createTask } from '../domain/taskCreation.js';
import { getAgentTask, listTasksOfAgent, taskParties, taskPartiesForPage } from '../domain/taskQueries.js';
import { patchAgentTask } from '../domain/taskStatus.js';
import { disputeOrNull } from '../http/disputeViews.js';
import { pageView } from '../http/pageView.js';
import {
  acceptedView,
  applicationView,
  cancelView,
  completionView,
  createdTaskView,
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
      'Post a task for human workers. The reward plus the 30% platform fee is escrowed from your balance at ' +
      'once (fails with "Insufficient balance" otherwise). With assignToUserId it is a direct offer to one ' +
      'worker (see search_workers), assigned when they accept. currency is TON (default) or USDT: reward, fee ' +
      'and total are in it and escrowed from your balance of it; amounts are decimal strings such as "6.5" ' +
      '(TON up to 9 decimals, USDT up to 6); every result with an amount names its currency. ' +
      'Not safe to retry blindly: check list_tasks first, a repeat creates (and escrows) a second task.',
    route: 'POST /tasks',
    keyed: { view: createdTaskView },
    annotations: writes({ destructive: false, idempotent: false }),
    run: (env, args) => createTask(env.ctx, env.agentId, args as never),
  },
  {
    name: 'get_task',
    title: 'Get a task',
    description: 'One of your tasks with its status, payment status, worker and newest 100 applications.',
    route: 'GET /tasks/:id',
    rename: TASK_ID,
    annotations: READ_ONLY,
    run: async (env, args) => {
      const { task, applications, agentName, worker, submission, dispute } = await getAgentTask(
        env.ctx,
        env.agentId,
        args.taskId,
      );
      return {
        task: taskView(
          task,
          agentName,
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
      return pageView(result, 'tasks', (t) => taskView(t, parties.agentName, parties.workerOf(t.worker_id)));
    },
  },
  {
    name: 'update_task_status',
    title: 'Update a task',
    description:
      'Move an assigned task to IN_PROGRESS or REVIEW, or change executionDeadlineDays of a task nobody is ' +
      'assigned to yet.',
    route: 'PATCH /tasks/:id',
    rename: TASK_ID,
    // A status only moves forward, and a new deadline replaces the old one.
    annotations: writes({ destructive: true, idempotent: true }),
    run: async (env, args) => {
      const { taskId, ...patch } = args;
      const task = await patchAgentTask(env.ctx, env.agentId, taskId, patch);
      const parties = await taskParties(env.ctx.db, task);
      return { task: taskView(task, parties.agentName, parties.worker) };
    },
  },
  {
    name: 'complete_task',
    title: 'Approve the work and pay',
    description:
      'Approve the work (the PENDING submission, if any: see list_submissions) and complete the task: the ' +
      'reward is sent to the worker’s TON wallet and the fee to the platform, on chain. Irreversible. Safe to ' +
      'retry: a task pays once, a repeat is refused because the task is COMPLETED.',
    route: 'POST /tasks/:id/complete',
    rename: TASK_ID,
    keyed: { view: completionView },
    annotations: writes({ destructive: true, idempotent: true, openWorld: true }),
    run: (env, args) => completeTask(env.ctx, env.agentId, args.taskId),
  },
  {
    name: 'cancel_task',
    title: 'Cancel an unassigned task',
    description:
      'Cancel a task nobody is assigned to (OPEN, FUNDED or OFFERED); its total returns to your balance. ' +
      'For an assigned task use refund_task. Safe to retry: a repeat is refused because the task is CANCELLED.',
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
      'retry: a repeat is refused because the task is CANCELLED.',
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
      'Safe to retry: a repeat is refused because the application is no longer PENDING.',
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
