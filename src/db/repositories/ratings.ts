import type { Executor, RatingRow } from './executor.js';

export async function insertRating(db: Executor, row: RatingRow): Promise<void> {
  await db.insertInto('ratings').values(row).execute();
}

export function findTaskRatings(db: Executor, taskId: string): Promise<RatingRow[]> {
  return db.selectFrom('ratings').selectAll().where('task_id', '=', taskId).execute();
}

/** The rating a worker gave the agent of a task (a task is rated once by each side), if any. */
export function findWorkerRatingOfTask(db: Executor, taskId: string, workerId: string) {
  return db
    .selectFrom('ratings')
    .select(['score', 'comment'])
    .where('task_id', '=', taskId)
    .where('rater_type', '=', 'USER')
    .where('rater_id', '=', workerId)
    .executeTakeFirst();
}
