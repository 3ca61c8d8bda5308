import { Type } from 'typebox';
import { cancelTask } from '../../domain/cancellation.js';
import { completeTask } from '../../domain/completion.js';
import { createTask } from '../../domain/taskCreation.js';
import { getAgentTask, listTasksOfAgent, taskParties, taskPartiesForPage } from '../../domain/taskQueries.js';
import { patchAgentTask } from '../../domain/taskStatus.js';
import { disputeOrNull } from '../disputeViews.js';
import { sendIdempotent } from '../idempotency.js';
import { pageView } from '../pageView.js';
import { AGENT_SECURITY, type Routes } from '../routeTypes.js';
import { errors, IdParam, NextCursor } from '../schemas/common.js';
import {
  CancelResult,
  CompleteResult,
  CreatedOffer,
  CreateTaskBody,
  InsufficientBalance,
  PatchTaskBody,
  RefundBody,
  Task,
  TaskListQuery,
} from '../schemas/task.js';
import { tracedContext } from '../traceHeader.js';
import { applicationView, cancelView, completionView, createdTaskView, taskView } from '../views.js';

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
        body: CreateTaskBody,
        response: {
          // The offer shape first: the serializer takes the first branch that fits, and a
          // direct offer also fits `{task}`, which would drop offeredWorker and message.
          201: Type.Union([CreatedOffer, Type.Object({ task: Task })]),
          402: InsufficientBalance,
          ...errors(400, 401, 404, 409, 429),
        },
      },
    },
    async (request, reply) =>
      sendIdempotent(
        request,
        reply,
        ctx,
        (c) => createTask(c, request.agentId, request.body),
        (created) => ({ status: 201, body: createdTaskView(created) }),
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
      const { task, applications, agentName, worker, submission, dispute } = await getAgentTask(
        ctx,
        request.agentId,
        request.params.id,
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
        ...taskView(task, parties.agentName, parties.workerOf(task.worker_id)),
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
      return { task: taskView(task, parties.agentName, parties.worker) };
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
          'Complete a task: the reward goes to the worker’s wallet and the fee to the platform, on chain',
        description:
          'This is how you approve submitted work: the waiting submission becomes ACCEPTED. Left unanswered ' +
          'until the task’s reviewDeadline, a submission is approved for you the same way (task.completed with ' +
          'autoReleased: true).',
        params: IdParam,
        response: { 200: CompleteResult, ...errors(401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      sendIdempotent(
        request,
        reply,
        ctx,
        (c) => completeTask(c, request.agentId, request.params.id),
        (done) => ({ status: 200, body: completionView(done) }),
      ),
  );
};
