import { addAgentRating } from '../../db/repositories/agents.js';
import type { RatingRow, TaskRow } from '../../db/repositories/executor.js';
import { findTaskRatings, insertRating } from '../../db/repositories/ratings.js';
import { addWorkerRating } from '../../db/repositories/workers.js';
import type { DomainContext } from '../context.js';
import { conflict, DomainError, invalid } from '../errors.js';
import { recordEvent } from '../events/events.js';
import { newId } from '../ids.js';
import { loadAgentTask, loadWorkerTask } from '../tasks/taskAccess.js';
import { isBlank, textLength } from '../text.js';
import { inTransaction, isUniqueViolation } from '../transaction.js';

export const RATING_COMMENT_MAX = 1000;

export interface RatingInput {
  score: number;
  comment?: string;
}

/** The agent rates the worker of its completed task. */
export async function rateWorker(ctx: DomainContext, agentId: string, taskId: string, input: RatingInput) {
  const task = await loadAgentTask(ctx.db, agentId, taskId);
  return rate(ctx, task, 'AGENT', agentId, task.worker_id, input);
}

/** The worker rates the agent of a task it completed; the agent hears rating.received. */
export async function rateAgent(ctx: DomainContext, workerId: string, taskId: string, input: RatingInput) {
  const task = await loadWorkerTask(ctx.db, workerId, taskId);
  return rate(ctx, task, 'USER', workerId, task.agent_id, input);
}

async function rate(
  ctx: DomainContext,
  task: TaskRow,
  raterType: 'AGENT' | 'USER',
  raterId: string,
  rateeId: string | null,
  input: RatingInput,
): Promise<RatingRow> {
  if (!Number.isInteger(input.score) || input.score < 1 || input.score > 5) {
    throw invalid('score', 'must be a whole number from 1 to 5');
  }
  if (input.comment !== undefined && textLength(input.comment) > RATING_COMMENT_MAX) {
    throw invalid('comment', `must be at most ${RATING_COMMENT_MAX} characters`);
  }
  if (task.status !== 'COMPLETED' || !rateeId) {
    throw new DomainError('validation', 'task must be completed before rating', {
      currentStatus: task.status,
    });
  }
  const now = ctx.clock.now();
  const rating: RatingRow = {
    id: newId('rating', now.getTime()),
    task_id: task.id,
    rater_type: raterType,
    rater_id: raterId,
    ratee_id: rateeId,
    score: input.score,
    comment: input.comment && !isBlank(input.comment) ? input.comment : null,
    created_at: now.toISOString(),
  };
  try {
    await inTransaction(ctx.db, async (trx) => {
      await insertRating(trx, rating);
      // Sum and count move together in one UPDATE, so concurrent ratings keep the average exact.
      if (raterType === 'AGENT') await addWorkerRating(trx, rateeId, rating.score);
      else {
        await addAgentRating(trx, rateeId, rating.score);
        await recordEvent(trx, {
          agentId: task.agent_id,
          taskId: task.id,
          type: 'rating.received',
          data: {
            taskId: task.id,
            rating: { id: rating.id, raterType, score: rating.score, comment: rating.comment },
          },
          now,
        });
      }
      return rating;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('Already rated this task');
    throw error;
  }
  return rating;
}

export async function getTaskRatings(ctx: DomainContext, agentId: string, taskId: string) {
  await loadAgentTask(ctx.db, agentId, taskId);
  const ratings = await findTaskRatings(ctx.db, taskId);
  return {
    agentRating: ratings.find((r) => r.rater_type === 'AGENT') ?? null,
    workerRating: ratings.find((r) => r.rater_type === 'USER') ?? null,
  };
}
