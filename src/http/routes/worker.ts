import { Type } from 'typebox';
import type { ApplicationRow } from '../../db/repositories/executor.js';
import { latestSubmission, latestSubmissions } from '../../db/repositories/submissions.js';
import { formatAmount } from '../../domain/money/currency.js';
import { explorerTxUrl, listPayoutsOfWorker } from '../../domain/money/earnings.js';
import { applyToTask } from '../../domain/tasks/applications.js';
import { applyToBatch, batchCardsFor } from '../../domain/tasks/batchPlaces.js';
import { acceptOffer, declineOffer, listOffers } from '../../domain/tasks/offers.js';
import {
  listApplicationsOfWorker,
  listTasksOfWorker,
  listTasksOpenToWorkers,
} from '../../domain/tasks/taskQueries.js';
import { patchWorkerTask } from '../../domain/tasks/taskStatus.js';
import { reputationIn, reputationOf, reputationsOf } from '../../domain/trust/agentReputation.js';
import { rateAgent } from '../../domain/trust/ratings.js';
import { getWorkerDetail } from '../../domain/workers/catalog.js';
import { connectWallet, issueWalletChallenge } from '../../domain/workers/walletProof.js';
import { updateWorkerProfile } from '../../domain/workers/workerProfile.js';
import { SHORT_BODY_LIMIT_BYTES } from '../bodyLimits.js';
import { sendIdempotent } from '../idempotency.js';
import { pageView } from '../pageView.js';
import { type Routes, WORKER_SECURITY } from '../routeTypes.js';
import { errors, IdParam, NextCursor, TaskIdParam } from '../schemas/common.js';
import { RateBody, Rating } from '../schemas/task.js';
import { WalletBody, WalletChallenge } from '../schemas/wallet.js';
import { WorkerPatchBody, WorkerSelf } from '../schemas/worker.js';
import { PageQuery, WorkerApplication, WorkerPayout, WorkerTask } from '../schemas/workerApi.js';
import { tracedContext } from '../traceHeader.js';
import { ratingView, workerApplicantsView, workerSelfView, workerTaskView } from '../views.js';

const tags = ['Worker'];
const security = WORKER_SECURITY;
const taskPage = Type.Object({
  tasks: Type.Array(WorkerTask),
  nextCursor: NextCursor,
  hasMore: Type.Boolean(),
});

const workerApplicationView = (a: ApplicationRow) => ({
  id: a.id,
  taskId: a.task_id,
  status: a.status,
  message: a.message,
  createdAt: a.created_at,
});

/** The worker API behind Telegram Mini App init data (`Authorization: tma ...`). */
export const workerRoutes: Routes = async (app, { ctx, config }) => {
  app.get(
    '/worker/me',
    {
      schema: {
        tags,
        security,
        operationId: 'getWorkerProfile',
        summary: 'Your profile',
        response: { 200: Type.Object({ worker: WorkerSelf }), ...errors(401) },
      },
    },
    async (request) => ({ worker: workerSelfView(await getWorkerDetail(ctx, request.workerId)) }),
  );

  app.patch(
    '/worker/me',
    {
      schema: {
        tags,
        security,
        operationId: 'updateWorkerProfile',
        summary: 'Update your profile (null clears a field)',
        body: WorkerPatchBody,
        response: { 200: Type.Object({ worker: WorkerSelf }), ...errors(400, 401) },
      },
    },
    async (request) => ({
      worker: workerSelfView(await updateWorkerProfile(ctx, request.workerId, request.body)),
    }),
  );

  app.put(
    '/worker/me/wallet',
    {
      bodyLimit: SHORT_BODY_LIMIT_BYTES,
      schema: {
        tags,
        security,
        operationId: 'connectWallet',
        summary: 'Set the TON wallet your rewards are paid to',
        description:
          'Send the TON Connect `ton_proof` the wallet signed for a payload from ' +
          '`POST /worker/me/wallet/challenge`; the payload is used up. A proof for another domain, older ' +
          'than 15 minutes, with a used, expired or unknown payload, or not signed by the key of the ' +
          "address's state init is 400. A bare `{address}` is accepted in the sandbox only. Changing the " +
          'wallet while a task is assigned to you is 409.',
        body: WalletBody,
        response: { 200: Type.Object({ worker: WorkerSelf }), ...errors(400, 401, 409) },
      },
    },
    async (request) => ({
      worker: workerSelfView(
        await connectWallet(ctx, request.workerId, request.body, { allowedDomains: config.tonProofDomains }),
      ),
    }),
  );

  app.post(
    '/worker/me/wallet/challenge',
    {
      schema: {
        tags,
        security,
        operationId: 'createWalletChallenge',
        summary: 'A single-use payload for the TON Connect proof of your wallet (valid 15 minutes)',
        response: { 201: WalletChallenge, ...errors(401) },
      },
    },
    async (request, reply) => reply.status(201).send(await issueWalletChallenge(ctx, request.workerId)),
  );

  app.get(
    '/worker/tasks',
    {
      schema: {
        tags,
        security,
        operationId: 'listOpenTasks',
        summary: 'Tasks open for applications, newest first',
        description:
          'A batch is one item: the task standing for it is its next open place for you, with `batch` ' +
          '(places, places left, your places against maxPerWorker). Apply to it with ' +
          '`POST /worker/batches/:id/applications`.',
        querystring: PageQuery,
        response: { 200: taskPage, ...errors(400, 401) },
      },
    },
    async (request) => {
      const result = await listTasksOpenToWorkers(ctx, request.workerId, request.query);
      const agents = await reputationsOf(
        ctx.db,
        result.items.map((t) => t.agent_id),
      );
      const batches = await batchCardsFor(
        ctx,
        request.workerId,
        result.items.flatMap((t) => (t.batch_id ? [t.batch_id] : [])),
      );
      return pageView(result, 'tasks', (t) => {
        const batch = t.batch_id ? batches.get(t.batch_id) : undefined;
        return {
          ...workerTaskView(t, reputationIn(agents, t.agent_id)),
          ...workerApplicantsView({
            applicantCount: Number(t.applicant_count),
            ownApplication: t.own_application,
          }),
          ...(batch ? { batch } : {}),
        };
      });
    },
  );

  app.get(
    '/worker/assignments',
    {
      schema: {
        tags,
        security,
        operationId: 'listAssignments',
        summary:
          'Tasks assigned to you, current and ended (completed, or cancelled after assignment), newest first',
        querystring: PageQuery,
        response: { 200: taskPage, ...errors(400, 401) },
      },
    },
    async (request) => {
      const result = await listTasksOfWorker(ctx, request.workerId, request.query);
      const ids = result.items.map((t) => t.id);
      const agents = await reputationsOf(
        ctx.db,
        result.items.map((t) => t.agent_id),
      );
      // The latest submission says what the list shows: "Changes asked" is not "In progress".
      const latest = await latestSubmissions(ctx.db, ids);
      return pageView(result, 'tasks', (t) =>
        workerTaskView(t, reputationIn(agents, t.agent_id), latest.get(t.id) ?? null),
      );
    },
  );

  app.post(
    '/worker/tasks/:id/applications',
    {
      bodyLimit: SHORT_BODY_LIMIT_BYTES,
      schema: {
        tags,
        security,
        operationId: 'applyToTask',
        summary: 'Apply to an open task (once; you need a wallet)',
        params: IdParam,
        body: Type.Object({ message: Type.String({ maxLength: 2000, default: '' }) }),
        response: { 201: Type.Object({ application: WorkerApplication }), ...errors(400, 401, 404, 409) },
      },
    },
    async (request, reply) => {
      const { application } = await applyToTask(
        tracedContext(request, ctx),
        request.workerId,
        request.params.id,
        request.body.message,
      );
      return reply.status(201).send({ application: workerApplicationView(application) });
    },
  );

  app.post(
    '/worker/batches/:id/applications',
    {
      schema: {
        tags,
        security,
        operationId: 'applyToBatch',
        summary: 'Apply to a batch: your application takes its next open place',
        description:
          'The application goes to the oldest task of the batch that is FUNDED with no application ' +
          'waiting (an open place), and holds that place until the agent accepts or rejects it; ' +
          '`application.taskId` says which task. Places are taken one after the other: when none is ' +
          "left the answer is 409 (the batch is full). At the batch's maxPerWorker it is 409 too. " +
          'You need a wallet, as for any application.',
        params: IdParam,
        body: Type.Object({ message: Type.String({ maxLength: 2000, default: '' }) }),
        response: {
          201: Type.Object({ application: WorkerApplication }),
          ...errors(400, 401, 404, 409),
        },
      },
    },
    async (request, reply) => {
      const { application } = await applyToBatch(
        tracedContext(request, ctx),
        request.workerId,
        request.params.id,
        request.body.message,
      );
      return reply.status(201).send({ application: workerApplicationView(application) });
    },
  );

  app.get(
    '/worker/applications',
    {
      schema: {
        tags,
        security,
        operationId: 'listWorkerApplications',
        summary: 'Your applications, newest first',
        querystring: PageQuery,
        response: {
          200: Type.Object({
            applications: Type.Array(WorkerApplication),
            nextCursor: NextCursor,
            hasMore: Type.Boolean(),
          }),
          ...errors(400, 401),
        },
      },
    },
    async (request) => {
      const result = await listApplicationsOfWorker(ctx, request.workerId, request.query);
      return pageView(result, 'applications', (a) => ({
        id: a.id,
        taskId: a.task_id,
        status: a.status,
        message: a.message,
        createdAt: a.created_at,
        task: {
          title: a.task_title,
          status: a.task_status,
          reward: formatAmount(a.task_currency, a.task_reward_nano),
          currency: a.task_currency,
        },
      }));
    },
  );

  app.get(
    '/worker/offers',
    {
      schema: {
        tags,
        security,
        operationId: 'listOffers',
        summary: 'Direct offers waiting for your answer',
        querystring: PageQuery,
        response: { 200: taskPage, ...errors(400, 401) },
      },
    },
    async (request) => {
      const result = await listOffers(ctx, request.workerId, request.query);
      const agents = await reputationsOf(
        ctx.db,
        result.items.map((t) => t.agent_id),
      );
      return pageView(result, 'tasks', (t) => workerTaskView(t, reputationIn(agents, t.agent_id)));
    },
  );

  app.post(
    '/worker/offers/:taskId/accept',
    {
      schema: {
        tags,
        security,
        operationId: 'acceptOffer',
        summary: 'Accept a direct offer: the task is yours and a chat opens',
        params: TaskIdParam,
        response: {
          200: Type.Object({ task: WorkerTask, chat: Type.Object({ id: Type.String() }) }),
          ...errors(401, 404, 409),
        },
      },
    },
    async (request, reply) =>
      sendIdempotent(
        request,
        reply,
        ctx,
        (c) => acceptOffer(c, request.workerId, request.params.taskId),
        async ({ task, chat }, db) => ({
          status: 200,
          body: {
            task: workerTaskView(task, await reputationOf(db, task.agent_id)),
            chat: { id: chat.id },
          },
        }),
      ),
  );

  app.post(
    '/worker/offers/:taskId/decline',
    {
      schema: {
        tags,
        security,
        operationId: 'declineOffer',
        summary: 'Decline a direct offer: the task opens to other workers',
        params: TaskIdParam,
        response: { 200: Type.Object({ task: WorkerTask }), ...errors(401, 404, 409) },
      },
    },
    async (request, reply) =>
      sendIdempotent(
        request,
        reply,
        ctx,
        (c) => declineOffer(c, request.workerId, request.params.taskId),
        async ({ task }, db) => ({
          status: 200,
          body: { task: workerTaskView(task, await reputationOf(db, task.agent_id)) },
        }),
      ),
  );

  app.patch(
    '/worker/tasks/:id',
    {
      bodyLimit: SHORT_BODY_LIMIT_BYTES,
      schema: {
        tags,
        security,
        operationId: 'updateWorkerTaskStatus',
        summary: 'Move your task to IN_PROGRESS or REVIEW',
        params: IdParam,
        body: Type.Object({ status: Type.Enum(['IN_PROGRESS', 'REVIEW'] as const) }),
        response: { 200: Type.Object({ task: WorkerTask }), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const task = await patchWorkerTask(ctx, request.workerId, request.params.id, request.body.status);
      const submission = (await latestSubmission(ctx.db, task.id)) ?? null;
      return { task: workerTaskView(task, await reputationOf(ctx.db, task.agent_id), submission) };
    },
  );

  app.get(
    '/worker/payouts',
    {
      schema: {
        operationId: 'workerListPayouts',
        tags,
        security,
        summary: 'Rewards paid to your wallet, newest first',
        description:
          'status "pending" while the transfer is not confirmed on chain; `explorerUrl` links the ' +
          'transaction on a TON explorer for the network (null on the sandbox, which has none).',
        querystring: PageQuery,
        response: {
          200: Type.Object({
            payouts: Type.Array(WorkerPayout),
            nextCursor: NextCursor,
            hasMore: Type.Boolean(),
          }),
          ...errors(400, 401),
        },
      },
    },
    async (request) => {
      const result = await listPayoutsOfWorker(ctx, request.workerId, request.query);
      return pageView(result, 'payouts', (p) => ({
        id: p.id,
        taskId: p.task_id!,
        taskTitle: p.task_title,
        amount: formatAmount(p.currency, p.amount_nano),
        currency: p.currency,
        status: p.status,
        toAddress: p.to_address,
        txHash: p.tx_hash,
        explorerUrl: explorerTxUrl(config.tonNetwork, p.tx_hash),
        createdAt: p.created_at,
      }));
    },
  );

  app.post(
    '/worker/tasks/:id/rate',
    {
      bodyLimit: SHORT_BODY_LIMIT_BYTES,
      schema: {
        tags,
        security,
        operationId: 'rateAgent',
        summary: 'Rate the agent of a task you completed (once)',
        params: IdParam,
        body: RateBody,
        response: { 201: Type.Object({ rating: Rating }), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      sendIdempotent(
        request,
        reply,
        ctx,
        (c) => rateAgent(c, request.workerId, request.params.id, request.body),
        (rating) => ({ status: 201, body: { rating: ratingView(rating) } }),
      ),
  );
};
