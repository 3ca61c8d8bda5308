import { sql } from 'kysely';
import type { Executor } from './executor.js';

/** The cheapest statement that needs the database to answer (readiness probe). */
export async function pingDatabase(db: Executor): Promise<void> {
  await sql`select 1`.execute(db);
}
