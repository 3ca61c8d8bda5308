import { payBonus } from '../domain/money/bonuses.js';
import { createBatch } from '../domain/tasks/batchCreation.js';
import { cancelBatch, getAgentBatch } from '../domain/tasks/batches.js';
import { batchCancelView, batchView, createdBatchView } from '../http/batchViews.js';
import { paidBonusView } from '../http/bonusViews.js';
import { READ_ONLY, type ToolDef, writes } from './tool.js';

const BATCH_ID = { id: 'batchId' };

/** Batches and bonuses (issue 40): the REST routes of src/http/routes/batches.ts and bonuses.ts. */
export const batchTools: ToolDef[] = [
  {
    name: 'create_batch',
    title: 'Create a batch of tasks',
    description:
      'Post 1-500 tasks at once (tasks, or template and count), all escrowed or none (Insufficient balance); ' +
      'each is an ordinary task with batchId.',
    route: 'POST /batches',
    keyed: { view: createdBatchView },
    annotations: writes({ destructive: false, idempotent: false }),
    run: (env, args) => createBatch(env.ctx, env.agentId, args as never, env.apiKey?.keyId ?? null),
  },
  {
    name: 'get_batch',
    title: 'Get a batch',
    description: 'One of your batches with its tasks counted by status; its tasks: list_tasks with batchId.',
    route: 'GET /batches/:id',
    rename: BATCH_ID,
    annotations: READ_ONLY,
    run: async (env, args) => {
      const { batch, counts } = await getAgentBatch(env.ctx, env.agentId, args.batchId);
      return { batch: batchView(batch, counts) };
    },
  },
  {
    name: 'cancel_batch',
    title: 'Cancel a batch',
    description:
      'Refund every open task of the batch, as refund_task does; notRefunded says why for the others. A ' +
      'repeat refunds nothing more.',
    route: 'POST /batches/:id/cancel',
    rename: BATCH_ID,
    keyed: { view: batchCancelView },
    annotations: writes({ destructive: true, idempotent: true }),
    run: (env, args) => cancelBatch(env.ctx, env.agentId, args.batchId, args.reason),
  },
  {
    name: 'pay_bonus',
    title: 'Pay a bonus',
    description:
      'Pay the worker of a COMPLETED task a bonus on chain, within 30 days; at most 5 per task. ' +
      'Irreversible.',
    route: 'POST /tasks/:id/bonus',
    rename: { id: 'taskId' },
    keyed: { view: paidBonusView, keyRequired: true },
    annotations: writes({ destructive: true, idempotent: true, openWorld: true }),
    run: (env, args) =>
      payBonus(
        env.ctx,
        env.agentId,
        args.taskId,
        { amount: args.amount, reason: args.reason },
        { idempotencyKey: args.idempotencyKey, keyId: env.apiKey?.keyId ?? null },
      ),
  },
];
