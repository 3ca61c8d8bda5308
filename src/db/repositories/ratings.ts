import type { Executor, RatingRow } from './executor.js';

export async function insertRating(db: Executor, row: RatingRow): Promise<void> {
  await db.insertInto('ratings').values(row).execute();
}

export function findTaskRatings(db: Executor, taskId: string): Promise<RatingRow[]> {
  return db.selectFrom('ratings').selectAll().where('task_id', '=', taskId).execute();
}
