import type { Executor, UploadRow } from './executor.js';

export async function insertUpload(db: Executor, row: UploadRow): Promise<void> {
  await db.insertInto('uploads').values(row).execute();
}

export function findUpload(db: Executor, id: string): Promise<UploadRow | undefined> {
  return db.selectFrom('uploads').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Marks a signed upload stored, once: a second PUT with the same URL finds it no longer pending. */
export function markUploadStored(
  db: Executor,
  id: string,
  stored: { key: string; size: number },
  now: string,
) {
  return db
    .updateTable('uploads')
    .set({ status: 'stored', size: stored.size, storage_key: stored.key, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}
