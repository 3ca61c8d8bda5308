import { Type } from 'typebox';
import { Amount, Currency, Nullable, nameSchemas, Timestamp } from './common.js';
import { CreateTaskBody, Task, TaskStatus } from './task.js';

/**
 * A task body inside a batch: POST /tasks' body, checked the same way item by item. It keeps
 * assignToUserId so that one given is refused with a 400 naming it, not silently dropped.
 */
const BatchItem = CreateTaskBody;

export const CreateBatchBody = Type.Object({
  tasks: Type.Optional(
    Type.Array(BatchItem, {
      minItems: 1,
      maxItems: 500,
      description: '1-500 POST /tasks bodies (no assignToUserId); or template and count',
    }),
  ),
  template: Type.Optional({
    ...BatchItem,
    description: 'One task body copied count times',
  }),
  count: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, description: 'Tasks made from template' })),
  maxPerWorker: Type.Optional(
    Type.Integer({
      minimum: 1,
      description:
        'Tasks of the batch one worker may hold or have held (1: each person once); absent: no limit',
    }),
  ),
  currency: Type.Optional({
    ...Currency,
    description: 'One currency for all (default TON)',
  }),
});

/** How many of the batch's tasks are in each status; every status is listed (a record keeps tools/list short). */
export const BatchCounts = Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
  description: 'Tasks of the batch in each status now (every status, 0 when none)',
});

export const Batch = Type.Object({
  id: Type.String({ description: 'Batch id (bat_...)' }),
  count: Type.Integer({ description: 'Tasks in the batch, 1 to 500' }),
  currency: Currency,
  totalAmount: {
    ...Amount,
    description: 'The sum of its tasks’ totals (rewards + fees), escrowed at creation',
  },
  maxPerWorker: Nullable(
    Type.Integer({ description: 'Tasks one worker may hold or have held; null: no limit' }),
  ),
  counts: BatchCounts,
  createdAt: Timestamp,
  completedAt: Nullable({
    ...Timestamp,
    description: 'When its last task ended (batch.completed); null while any is open',
  }),
});

export const CreatedBatch = Type.Object({
  batch: Batch,
  tasks: Type.Array(Task, { description: 'Every task of the batch, in the order given' }),
});

export const BatchListQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  cursor: Type.Optional(Type.String({ maxLength: 400 })),
});

export const CancelBatchBody = Type.Union([
  Type.Object({
    reason: Type.Optional(Type.String({ maxLength: 1000, description: 'Why' })),
  }),
  Type.Null(),
]);

export const BatchCancelResult = Type.Object({
  batch: Batch,
  refunded: Type.Array(Type.String(), {
    description:
      'Ids of the tasks refunded now (CANCELLED): each total back on your balance, as POST /tasks/:id/refund does',
  }),
  refundedAmount: { ...Amount, description: 'The sum returned to your balance of the batch’s currency' },
  notRefunded: Type.Array(Type.Object({ id: Type.String(), status: TaskStatus, reason: Type.String() }), {
    description: 'Tasks left as they were, each with why (ended, work submitted, a dispute open)',
  }),
});

nameSchemas({
  CreateBatchBody,
  BatchCounts,
  Batch,
  CreatedBatch,
  BatchCancelResult,
  CancelBatchBody,
});
