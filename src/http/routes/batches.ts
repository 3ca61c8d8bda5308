import { Type } from 'typebox';
import { createBatch } from '../../domain/tasks/batchCreation.js';
import { cancelBatch, getAgentBatch, listBatchesOfAgent } from '../../domain/tasks/batches.js';
import { batchCancelView, batchView, createdBatchView } from '../batchViews.js';
import { sendIdempotent } from '../idempotency.js';
import { pageView } from '../pageView.js';
import { AGENT_SECURITY, type Routes } from '../routeTypes.js';
import {
  Batch,
  BatchCancelResult,
  BatchListQuery,
  CancelBatchBody,
  CreateBatchBody,
  CreatedBatch,
} from '../schemas/batch.js';
import { errors, example, IdParam, NextCursor } from '../schemas/common.js';
import { InsufficientBalance } from '../schemas/task.js';
import {
  BATCH_CANCEL_EXAMPLE,
  BATCH_EXAMPLE,
  CREATE_BATCH_EXAMPLE,
  CREATED_BATCH_EXAMPLE,
} from './batchExamples.js';

const tags = ['Batches'];
const security = AGENT_SECURITY;
/** 500 task bodies with long descriptions need more than the usual 1 MB. */
const BATCH_BODY_LIMIT_BYTES = 6 * 1024 * 1024;

export const batchRoutes: Routes = async (app, { ctx }) => {
  app.post(
    '/batches',
    {
      bodyLimit: BATCH_BODY_LIMIT_BYTES,
      schema: {
        tags,
        security,
        operationId: 'createBatch',
        summary: 'Create 1-500 tasks at once, all escrowed in one transaction or none',
        description:
          'Give `tasks` (a list of POST /tasks bodies) or `template` and `count`. Every task is created FUNDED, ' +
          'an ordinary task with `batchId`, and the whole sum (rewards + 30% fees) is escrowed from your balance ' +
          'of the batch’s one currency at once: if it does not cover the sum, 402 and nothing is created. A bad ' +
          'item is a 400 whose details name it (`tasks[3].reward`). `maxPerWorker` limits the tasks one worker may ' +
          'hold or have held. You hear batch.created (not a task.funded per task), and batch.completed when its ' +
          'last task ends. Send an Idempotency-Key: a retry then never creates a second batch.',
        body: example(CreateBatchBody, CREATE_BATCH_EXAMPLE),
        response: {
          201: example(CreatedBatch, CREATED_BATCH_EXAMPLE),
          402: example(InsufficientBalance, {
            error: 'Insufficient balance',
            currentBalance: '100',
            requiredAmount: '130',
            currency: 'TON',
            message:
              'This batch of 50 tasks costs 130 TON (rewards 100 TON + 30% fees 30 TON); your TON balance is 100 TON, 30 TON short. Nothing was created: top up your TON balance and try again.',
          }),
          ...errors(400, 401, 413, 429),
        },
      },
    },
    async (request, reply) =>
      sendIdempotent(
        request,
        reply,
        ctx,
        (c) => createBatch(c, request.agentId, request.body, request.apiKey?.keyId ?? null),
        (created) => ({ status: 201, body: createdBatchView(created) }),
      ),
  );

  app.get(
    '/batches',
    {
      schema: {
        tags,
        security,
        operationId: 'listBatches',
        summary: 'Your batches, newest first, each with its tasks counted by status',
        querystring: BatchListQuery,
        response: {
          200: example(
            Type.Object({ batches: Type.Array(Batch), nextCursor: NextCursor, hasMore: Type.Boolean() }),
            { batches: [BATCH_EXAMPLE], nextCursor: null, hasMore: false },
          ),
          ...errors(400, 401),
        },
      },
    },
    async (request) => {
      const result = await listBatchesOfAgent(ctx, request.agentId, request.query);
      return pageView(result, 'batches', (batch) => batchView(batch, result.countsOf(batch.id)));
    },
  );

  app.get(
    '/batches/:id',
    {
      schema: {
        tags,
        security,
        operationId: 'getBatch',
        summary:
          'One of your batches, with its tasks counted by status (the tasks: GET /agents/tasks?batchId=)',
        params: IdParam,
        response: {
          200: example(Type.Object({ batch: Batch }), { batch: BATCH_EXAMPLE }),
          ...errors(401, 403, { 404: 'Batch not found' }),
        },
      },
    },
    async (request) => {
      const { batch, counts } = await getAgentBatch(ctx, request.agentId, request.params.id);
      return { batch: batchView(batch, counts) };
    },
  );

  app.post(
    '/batches/:id/cancel',
    {
      schema: {
        tags,
        security,
        operationId: 'cancelBatch',
        summary: 'Refund every task of the batch still open; says which were refunded and which not, and why',
        description:
          'Each open task is refunded exactly as POST /tasks/:id/refund would: its total back to your balance, ' +
          'waiting applicants and the assigned worker told. A task whose work was submitted, with a dispute ' +
          'open, or already ended is left as it is and listed in notRefunded with the reason. Calling it again ' +
          'refunds nothing more.',
        params: IdParam,
        body: Type.Optional(example(CancelBatchBody, { reason: 'Enough photos' })),
        response: {
          200: example(BatchCancelResult, BATCH_CANCEL_EXAMPLE),
          ...errors(400, 401, 403, { 404: 'Batch not found' }),
        },
      },
    },
    async (request, reply) =>
      sendIdempotent(
        request,
        reply,
        ctx,
        (c) => cancelBatch(c, request.agentId, request.params.id, request.body?.reason),
        (result) => ({ status: 200, body: batchCancelView(result) }),
      ),
  );
};
