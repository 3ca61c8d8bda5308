import type { BatchRow } from '../db/repositories/executor.js';
import { formatAmount } from '../domain/money/currency.js';
import type { CreatedBatch } from '../domain/tasks/batchCreation.js';
import type { BatchCancellation, StatusCounts } from '../domain/tasks/batches.js';
import { TASK_STATUSES, type TaskStatus } from '../domain/tasks/states.js';
import { taskView } from './views.js';

/** A batch as the agent API shows it (REST and MCP): every status counted, 0 when none. */
export function batchView(batch: BatchRow, counts: StatusCounts) {
  return {
    id: batch.id,
    count: batch.task_count,
    currency: batch.currency,
    totalAmount: formatAmount(batch.currency, batch.total_nano),
    maxPerWorker: batch.max_per_worker,
    counts: Object.fromEntries(TASK_STATUSES.map((s) => [s, counts.get(s) ?? 0])) as Record<
      TaskStatus,
      number
    >,
    createdAt: batch.created_at,
    completedAt: batch.completed_at,
  };
}

/** POST /batches: the batch (all its tasks FUNDED) and every task, in the order given. */
export function createdBatchView(created: CreatedBatch) {
  const counts: StatusCounts = new Map([['FUNDED', created.tasks.length]]);
  return {
    batch: batchView(created.batch, counts),
    tasks: created.tasks.map((task) =>
      taskView(task, { name: created.agentName, livemode: created.livemode }, null),
    ),
  };
}

export function batchCancelView(result: BatchCancellation) {
  const refundedNano = result.refunded.reduce((sum, task) => sum + task.total_nano, 0n);
  return {
    batch: batchView(result.batch, result.counts),
    refunded: result.refunded.map((task) => task.id),
    refundedAmount: formatAmount(result.batch.currency, refundedNano),
    notRefunded: result.kept.map(({ task, reason }) => ({ id: task.id, status: task.status, reason })),
  };
}
