import { Type } from 'typebox';
import { isApproval, postTask } from '../../domain/agents/approvals.js';
import { cancelTask } from '../../domain/tasks/cancellation.js';
import {
  getAgentTask,
  listTasksOfAgent,
  taskParties,
  taskPartiesForPage,
} from '../../domain/tasks/taskQueries.js';
import { patchAgentTask } from '../../domain/tasks/taskStatus.js';
import { gradeTask } from '../../domain/trust/partialPayment.js';
import { approvalView } from '../approvalViews.js';
import { disputeOrNull } from '../disputeViews.js';
import { sendIdempotent } from '../idempotency.js';
import { pageView } from '../pageView.js';
import { AGENT_SECURITY, type Routes } from '../routeTypes.js';
import { CreatedApproval } from '../schemas/approval.js';
import { errors, example, IdParam, NextCursor } from '../schemas/common.js';
import {
  CancelResult,
  CompleteBody,
  CompleteResult,
  CreatedOffer,
  CreateTaskBody,
  InsufficientBalance,
  PartialOfferResult,
  PatchTaskBody,
  RefundBody,
  Task,
  TaskListQuery,
} from '../schemas/task.js';
import { tracedContext } from '../traceHeader.js';
import { applicationView, cancelView, createdTaskView, gradingView, taskView } from '../views.js';

const tags = ['Tasks'];
const security = AGENT_SECURITY;

export const taskRoutes: Routes = async (app, { ctx }) => {
  app.post(
    '/tasks',
    {
      schema: {
        tags,
        security,
        operationId: 'createTask',
        summary: 'Create a task (reward + 30% fee escrowed from your balance), or a direct offer',
        description:
          'A task whose total is above your key’s approvalAbove is not created yet: 202 with an approval ' +
          'that waits for your owner (nothing escrowed). Follow it with GET /approvals/:id or the ' +
          'approval.approved / approval.declined / approval.expired / approval.failed events.',
        body: CreateTaskBody,
        response: {
          // The offer shape first: the serializer takes the first branch that fits, and a
          // direct offer also fits `{task}`, which would drop offeredWorker and message.
          201: Type.Union([CreatedOffer, Type.Object({ task: Task })]),
          202: CreatedApproval,
          402: InsufficientBalance,
          // 403: a limit of the calling key's spend policy, or the agent is frozen.
          ...errors(400, 401, 403, 404, 409, 429),
        },
      },
    },
    async (request, reply) =>
      sendIdempotent(
        request,
        reply,
        ctx,
        (c) => postTask(c, request.agentId, request.body, request.apiKey?.keyId ?? null),
        (posted) =>
          isApproval(posted)
            ? { status: 202, body: { approval: approvalView(posted.approval) } }
            : { status: 201, body: createdTaskView(posted) },
      ),
  );

  app.get(
    '/tasks/:id',
    {
      schema: {
        tags,
        security,
        operationId: 'getTask',
        summary: 'One of your tasks, with its newest 100 applications',
        params: IdParam,
        response: { 200: Type.Object({ task: Task }), ...errors(401, 403, 404) },
      },
    },
    async (request) => {
      const { task, applications, owner, worker, submission, dispute } = await getAgentTask(
        ctx,
        request.agentId,
        request.params.id,
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
  );

  app.get(
    '/agents/tasks',
    {
      schema: {
        tags,
        security,
        operationId: 'listTasks',
        summary: 'Your tasks, newest first',
        querystring: TaskListQuery,
        response: {
          200: Type.Object({ tasks: Type.Array(Task), nextCursor: NextCursor, hasMore: Type.Boolean() }),
          ...errors(400, 401),
        },
      },
    },
    async (request) => {
      const result = await listTasksOfAgent(ctx, request.agentId, request.query);
      const parties = await taskPartiesForPage(ctx.db, request.agentId, result.items);
      return pageView(result, 'tasks', (task) => ({
        ...taskView(task, parties.owner, parties.workerOf(task.worker_id)),
        applicationCount: parties.applicationCountOf(task.id),
      }));
    },
  );

  app.patch(
    '/tasks/:id',
    {
      schema: {
        tags,
        security,
        operationId: 'updateTaskStatus',
        summary:
          'Move an assigned task to IN_PROGRESS or REVIEW, or change executionDeadlineDays of an open task',
        params: IdParam,
        body: PatchTaskBody,
        response: { 200: Type.Object({ task: Task }), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const task = await patchAgentTask(ctx, request.agentId, request.params.id, request.body);
      const parties = await taskParties(ctx.db, task);
      return { task: taskView(task, parties.owner, parties.worker) };
    },
  );

  app.delete(
    '/tasks/:id',
    {
      schema: {
        tags,
        security,
        operationId: 'cancelTask',
        summary: 'Cancel an unassigned task (OPEN, FUNDED or OFFERED); the total returns to your balance',
        params: IdParam,
        response: { 200: CancelResult, ...errors(401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { task, refundNano } = await cancelTask(
        tracedContext(request, ctx),
        request.agentId,
        request.params.id,
        'delete',
      );
      return cancelView(task, refundNano);
    },
  );

  app.post(
    '/tasks/:id/refund',
    {
      schema: {
        tags,
        security,
        operationId: 'refundTask',
        summary: 'Cancel a task that is not completed, assigned or not; the total returns to your balance',
        description:
          'Once the worker submitted work (POST /worker/tasks/:id/submissions) the answer is 409: approve it ' +
          '(POST /tasks/:id/complete), request a revision (POST /tasks/:id/revisions) or open a dispute.',
        params: IdParam,
        body: Type.Optional(RefundBody),
        response: { 200: CancelResult, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      sendIdempotent(
        request,
        reply,
        ctx,
        (c) => cancelTask(c, request.agentId, request.params.id, 'refund', request.body?.reason),
        ({ task, refundNano }) => ({ status: 200, body: cancelView(task, refundNano) }),
      ),
  );

  app.post(
    '/tasks/:id/complete',
    {
      schema: {
        tags,
        security,
        operationId: 'completeTask',
        summary:
          'Complete a task: the reward goes to the worker’s wallet and the fee to the platform, on chain; or offer part of it (amount)',
        description:
          'This is how you approve submitted work: the waiting submission becomes ACCEPTED. Left unanswered ' +
          'until the task’s reviewDeadline, a submission is approved for you the same way (task.completed with ' +
          'autoReleased: true). Graded approval: with an amount below the reward (and a reason) the answer is 202 ' +
          'with partialOffer, and nothing is paid yet: the worker accepts it (task.completed with partial: true), ' +
          'opens a dispute (an operator decides, as for any dispute), or stays silent until partialOffer.acceptBy ' +
          'and it is paid then. The fee is taken in proportion to the amount paid, rounded down, as in a dispute ' +
          'split; the rest returns to your balance. The task’s settlement shows the outcome once it ended.',
        params: IdParam,
        body: Type.Optional(
          example(CompleteBody, {}, { amount: '3', reason: 'Two of the five photos are of the wrong shelf' }),
        ),
        response: {
          200: CompleteResult,
          202: example(PartialOfferResult, {
            success: true,
            task: { id: 'tsk_01jq7v02x4m2c8w6t0r9b5k3n1p7', status: 'REVIEW', paymentStatus: 'DEPOSITED' },
            partialOffer: {
              amount: '3',
              currency: 'TON',
              reason: 'Two of the five photos are of the wrong shelf',
              offeredAt: '2026-03-14T09:30:00.000Z',
              acceptBy: '2026-03-17T09:30:00.000Z',
            },
          }),
          ...errors(400, 401, 403, 404, 409),
        },
      },
    },
    async (request, reply) =>
      sendIdempotent(
        request,
        reply,
        ctx,
        (c) => gradeTask(c, request.agentId, request.params.id, request.body ?? {}),
        gradingView,
      ),
  );
};
