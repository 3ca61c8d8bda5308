import { compiledInsert } from '../compiledQuery.js';
import type { EventRow, Executor } from './executor.js';

const insertEventRow = compiledInsert('events');

export function insertEvent(db: Executor, row: EventRow): Promise<void> {
  return insertEventRow(db, row);
}

export function listTaskEvents(db: Executor, taskId: string): Promise<EventRow[]> {
  return db.selectFrom('events').selectAll().where('task_id', '=', taskId).orderBy('id').execute();
}

export function findEvent(db: Executor, id: string): Promise<EventRow | undefined> {
  return db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst();
}
