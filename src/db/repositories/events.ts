import type { EventRow, Executor } from './executor.js';

export async function insertEvent(db: Executor, row: EventRow): Promise<void> {
  await db.insertInto('events').values(row).execute();
}

export function listTaskEvents(db: Executor, taskId: string): Promise<EventRow[]> {
  return db.selectFrom('events').selectAll().where('task_id', '=', taskId).orderBy('id').execute();
}

export function findEvent(db: Executor, id: string): Promise<EventRow | undefined> {
  return db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst();
}
