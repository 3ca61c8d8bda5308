import { Type } from 'typebox';
import { latestSubmission } from '../../db/repositories/submissions.js';
import { disputeOfTask } from '../../domain/disputes/disputeStatements.js';
import { workerTaskFacts, workerTaskFor } from '../../domain/tasks/taskQueries.js';
import { reputationOf } from '../../domain/trust/agentReputation.js';
import { requestRevision } from '../../domain/trust/revisions.js';
import {
  listSubmissionsForAgent,
  listSubmissionsForWorker,
  submissionView,
  submitWork,
} from '../../domain/trust/submissions.js';
import { disputeOrNull } from '../disputeViews.js';
import { sendIdempotent } from '../idempotency.js';
import { AGENT_SECURITY, type Routes, WORKER_SECURITY } from '../routeTypes.js';
import { errors, IdParam } from '../schemas/common.js';
import { RevisionBody, Submission, SubmissionBody } from '../schemas/submission.js';
import { Task } from '../schemas/task.js';
import { WorkerTask } from '../schemas/workerApi.js';
import { revisionView, workerApplicantsView, workerTaskView } from '../views.js';

const submissionList = Type.Object({ submissions: Type.Array(Submission) });

/** The worker's side of submissions (issue 25): hand in work, see it, see one task. */
export const workerSubmissionRoutes: Routes = async (app, { ctx }) => {
  const tags = ['Worker'];
  const security = WORKER_SECURITY;

  app.post(
    '/worker/tasks/:id/submissions',
    {
      schema: {
        tags,
        security,
        operationId: 'submitWork',
        summary: 'Submit your work for review: the task moves to REVIEW and the review clock starts',
        description:
          'For the assigned worker while the task is ASSIGNED or IN_PROGRESS. `attachments` are fileUrls of ' +
          'files you uploaded (POST /worker/upload). If the agent neither approves, asks for a revision nor ' +
          'opens a dispute before `reviewDeadline`, the work is approved and you are paid. A second ' +
          'submission while one waits is 409.',
        params: IdParam,
        body: SubmissionBody,
        response: {
          201: Type.Object({ submission: Submission, task: WorkerTask }),
          ...errors(400, 401, 403, 404, 409, 429),
        },
      },
      config: { rateLimit: 'chat' },
    },
    async (request, reply) =>
      sendIdempotent(
        request,
        reply,
        ctx,
        (c) => submitWork(c, request.workerId, request.params.id, request.body),
        async ({ submission, task }, db) => ({
          status: 201,
          body: {
            submission: submissionView(submission),
            task: workerTaskView(task, await reputationOf(db, task.agent_id), submission),
          },
        }),
      ),
  );

  app.get(
    '/worker/tasks/:id/submissions',
    {
      schema: {
        tags,
        security,
        operationId: 'listMySubmissions',
        summary: 'Your submissions of a task you hold, newest first',
        params: IdParam,
        response: { 200: submissionList, ...errors(401, 403, 404) },
      },
    },
    async (request) => ({
      submissions: (await listSubmissionsForWorker(ctx, request.workerId, request.params.id)).map(
        submissionView,
      ),
    }),
  );

  app.get(
    '/worker/tasks/:id',
    {
      schema: {
        tags,
        security,
        operationId: 'getWorkerTask',
        summary: 'One task: open to applicants, offered to you, or yours (then with your latest submission)',
        params: IdParam,
        response: { 200: Type.Object({ task: WorkerTask }), ...errors(401, 404) },
      },
    },
    async (request) => {
      const task = await workerTaskFor(ctx, request.workerId, request.params.id);
      const own = task.worker_id === request.workerId && task.status !== 'OFFERED';
      const submission = own ? ((await latestSubmission(ctx.db, task.id)) ?? null) : undefined;
      const dispute = own ? disputeOrNull(await disputeOfTask(ctx.db, task)) : undefined;
      const { applicants, rating } = await workerTaskFacts(ctx, request.workerId, task.id, own);
      return {
        task: {
          ...workerTaskView(task, await reputationOf(ctx.db, task.agent_id), submission, dispute),
          ...workerApplicantsView(applicants),
          ...(rating !== undefined ? { yourRating: rating } : {}),
        },
      };
    },
  );
};

/** The agent's side: the submissions of its task, and revision requests. */
export const agentSubmissionRoutes: Routes = async (app, { ctx }) => {
  app.post(
    '/tasks/:id/revisions',
    {
      schema: {
        tags: ['Tasks'],
        security: AGENT_SECURITY,
        operationId: 'requestRevision',
        summary: 'Send the waiting submission back to the worker with what to change (at most 3 per task)',
        description:
          'The submission becomes REVISION_REQUESTED, the task goes back to IN_PROGRESS (the review clock stops) ' +
          'and its execution deadline moves to at least 24 hours ahead; the worker is told your reason. ' +
          '409 when no submission waits, and on a 4th request: then complete the task or open a dispute.',
        params: IdParam,
        body: RevisionBody,
        response: {
          201: Type.Object({ submission: Submission, task: Task }),
          ...errors(400, 401, 403, 404, 409, 429),
        },
      },
      config: { rateLimit: 'chat' },
    },
    async (request, reply) =>
      sendIdempotent(
        request,
        reply,
        ctx,
        (c) => requestRevision(c, request.agentId, request.params.id, request.body.reason),
        (result) => ({ status: 201, body: revisionView(result) }),
      ),
  );

  app.get(
    '/tasks/:id/submissions',
    {
      schema: {
        tags: ['Tasks'],
        security: AGENT_SECURITY,
        operationId: 'listSubmissions',
        summary: 'The work the worker submitted for this task, newest first',
        params: IdParam,
        response: { 200: submissionList, ...errors(401, 403, 404) },
      },
    },
    async (request) => ({
      submissions: (await listSubmissionsForAgent(ctx, request.agentId, request.params.id)).map(
        submissionView,
      ),
    }),
  );
};
