import type { Executor } from './executor.js';

/** Records an update as handled; false when it already was (a redelivery). */
export async function recordUpdateOnce(db: Executor, updateId: string, now: string): Promise<boolean> {
  const inserted = await db
    .insertInto('telegram_updates')
    .values({ update_id: updateId, received_at: now })
    .onConflict((oc) => oc.column('update_id').doNothing())
    .returning('update_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Forgets an update whose handling failed, so Telegram's redelivery is handled. */
export async function forgetUpdate(db: Executor, updateId: string): Promise<void> {
  await db.deleteFrom('telegram_updates').where('update_id', '=', updateId).execute();
}

/** Drops records older than `before`: Telegram stops redelivering long before. */
export async function pruneUpdates(db: Executor, before: string): Promise<void> {
  await db.deleteFrom('telegram_updates').where('received_at', '<', before).execute();
}
