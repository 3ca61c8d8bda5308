import { type ExpressionBuilder, sql, type Updateable } from 'kysely';
import type { Currency } from '../../domain/money/currency.js';
import { compiledOnce } from '../compiledQuery.js';
import type { Database } from '../schema.js';
import type { Executor, WorkerRow } from './executor.js';

const selectWorker = compiledOnce((db: Executor, id: string) =>
  db.selectFrom('workers').selectAll().where('id', '=', id),
);

export async function findWorker(db: Executor, id: string): Promise<WorkerRow | undefined> {
  return (await selectWorker(db, id))[0];
}

export async function findWorkers(db: Executor, ids: string[]): Promise<WorkerRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('workers').selectAll().where('id', 'in', ids).execute();
}

export function findWorkerByTelegramId(db: Executor, telegramId: string): Promise<WorkerRow | undefined> {
  return db.selectFrom('workers').selectAll().where('telegram_id', '=', telegramId).executeTakeFirst();
}

/** Registers the worker on first sign-in; a concurrent first sign-in finds the row instead. */
export async function insertWorkerIfAbsent(db: Executor, row: WorkerRow): Promise<void> {
  await db
    .insertInto('workers')
    .values(row)
    .onConflict((oc) => oc.column('telegram_id').doNothing())
    .execute();
}

export function updateWorker(
  db: Executor,
  id: string,
  patch: Updateable<Database['workers']>,
): Promise<WorkerRow | undefined> {
  return db.updateTable('workers').set(patch).where('id', '=', id).returningAll().executeTakeFirst();
}

/** Replaces the worker's searchable skills (lower-cased, de-duplicated). */
export async function replaceWorkerSkills(db: Executor, workerId: string, skills: string[]): Promise<void> {
  await db.deleteFrom('worker_skills').where('worker_id', '=', workerId).execute();
  const unique = [...new Set(skills.map((s) => s.toLowerCase()))];
  if (unique.length > 0) {
    await db
      .insertInto('worker_skills')
      .values(unique.map((skill) => ({ worker_id: workerId, skill })))
      .execute();
  }
}

/** The worker's column that sums earnings in `currency` (TON and USDT never mix). */
const earnedColumn = (currency: Currency) =>
  currency === 'TON' ? ('total_earned_nano' as const) : ('usdt_earned_micro' as const);

/** A task done: its count, and the earnings of the task's currency (never the other's). */
export async function recordCompletedTask(
  db: Executor,
  workerId: string,
  currency: Currency,
  earned: bigint,
): Promise<void> {
  const column = earnedColumn(currency);
  await db
    .updateTable('workers')
    .set({
      completed_tasks: sql`completed_tasks + 1`,
      [column]: sql`${sql.ref(column)} + ${earned}`,
    })
    .where('id', '=', workerId)
    .execute();
}

/** A bonus adds to what the worker earned in `currency`, not to the tasks they completed. */
export async function addWorkerEarnings(
  db: Executor,
  workerId: string,
  currency: Currency,
  earned: bigint,
): Promise<void> {
  const column = earnedColumn(currency);
  await db
    .updateTable('workers')
    .set({ [column]: sql`${sql.ref(column)} + ${earned}` })
    .where('id', '=', workerId)
    .execute();
}

export async function addWorkerRating(db: Executor, workerId: string, score: number): Promise<void> {
  await db
    .updateTable('workers')
    .set({ rating_sum: sql`rating_sum + ${score}`, rating_count: sql`rating_count + 1` })
    .where('id', '=', workerId)
    .execute();
}

export interface CatalogFilter {
  skills: string[];
  country?: string;
  timezone?: string;
  minRateNano?: bigint;
  maxRateNano?: bigint;
  available: boolean;
}

/** Position in the catalog order: completed tasks desc, then member since, then id. */
export interface CatalogPosition {
  completedTasks: number;
  createdAt: string;
  id: string;
}

function catalogWhere(filter: CatalogFilter) {
  return (eb: ExpressionBuilder<Database, 'workers'>) => {
    const conditions = [
      eb('workers.wallet_address', 'is not', null),
      eb('workers.headline', 'is not', null),
      eb('workers.headline', '!=', ''),
      eb('workers.skills_json', '!=', '[]'),
      eb('workers.available', '=', filter.available ? 1 : 0),
    ];
    for (const skill of filter.skills) {
      conditions.push(
        eb.exists(
          eb
            .selectFrom('worker_skills')
            .select('worker_skills.skill')
            .whereRef('worker_skills.worker_id', '=', 'workers.id')
            .where('worker_skills.skill', '=', skill.toLowerCase()),
        ),
      );
    }
    if (filter.country)
      conditions.push(eb(eb.fn('lower', ['workers.country']), '=', filter.country.toLowerCase()));
    if (filter.timezone) {
      conditions.push(eb(eb.fn('lower', ['workers.timezone']), '=', filter.timezone.toLowerCase()));
    }
    if (filter.minRateNano !== undefined)
      conditions.push(eb('workers.hourly_rate_nano', '>=', filter.minRateNano));
    if (filter.maxRateNano !== undefined)
      conditions.push(eb('workers.hourly_rate_nano', '<=', filter.maxRateNano));
    return eb.and(conditions);
  };
}

export function listCatalog(
  db: Executor,
  filter: CatalogFilter,
  after: CatalogPosition | null,
  limit: number,
) {
  let query = db.selectFrom('workers').selectAll().where(catalogWhere(filter));
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb('completed_tasks', '<', after.completedTasks),
        eb.and([eb('completed_tasks', '=', after.completedTasks), laterMember(eb, after)]),
      ]),
    );
  }
  return query.orderBy('completed_tasks', 'desc').orderBy('created_at').orderBy('id').limit(limit).execute();
}

/** Position in the rating order: average desc (unrated last), then rating count desc, then member since. */
export interface RatingPosition {
  ratingSum: number;
  ratingCount: number;
  createdAt: string;
  id: string;
}

/**
 * The catalog by average rating. The order uses the average; the cursor compares averages
 * exactly by cross-multiplying (a/b < c/d as a*d < c*b), so no worker is skipped or repeated
 * at a page boundary.
 */
export function listCatalogByRating(
  db: Executor,
  filter: CatalogFilter,
  after: RatingPosition | null,
  limit: number,
) {
  let query = db.selectFrom('workers').selectAll().where(catalogWhere(filter));
  if (after && after.ratingCount > 0) {
    const p = after;
    query = query.where((eb) => {
      // In 64 bits: two 32-bit counts multiplied overflow PostgreSQL's integer (a cursor may carry
      // any count up to MAX_CURSOR_NUMBER); SQLite's integers are 64-bit already.
      const left = sql<number>`cast(rating_sum as bigint) * ${p.ratingCount}`;
      const right = sql<number>`cast(${p.ratingSum} as bigint) * rating_count`;
      return eb.or([
        eb('rating_count', '=', 0),
        eb.and([eb('rating_count', '>', 0), eb(left, '<', right)]),
        eb.and([
          eb('rating_count', '>', 0),
          eb(left, '=', right),
          eb.or([
            eb('rating_count', '<', p.ratingCount),
            eb.and([eb('rating_count', '=', p.ratingCount), laterMember(eb, p)]),
          ]),
        ]),
      ]);
    });
  } else if (after) {
    query = query.where((eb) => eb.and([eb('rating_count', '=', 0), laterMember(eb, after)]));
  }
  return query
    .orderBy(sql`case when rating_count = 0 then 1 else 0 end`)
    .orderBy(sql`cast(rating_sum as real) / nullif(rating_count, 0)`, 'desc')
    .orderBy('rating_count', 'desc')
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Joined later (or the same moment and a later id): the last tie-breakers of both orders. */
function laterMember(eb: ExpressionBuilder<Database, 'workers'>, p: { createdAt: string; id: string }) {
  return eb.or([
    eb('created_at', '>', p.createdAt),
    eb.and([eb('created_at', '=', p.createdAt), eb('id', '>', p.id)]),
  ]);
}

export async function countCatalog(db: Executor, filter: CatalogFilter): Promise<number> {
  const row = await db
    .selectFrom('workers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(catalogWhere(filter))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Is the worker holding (assigned to) any task right now? */
export async function hasActiveAssignment(db: Executor, workerId: string): Promise<boolean> {
  const row = await db
    .selectFrom('tasks')
    .select('id')
    .where('worker_id', '=', workerId)
    .where('status', 'in', ['ASSIGNED', 'IN_PROGRESS', 'REVIEW'])
    .executeTakeFirst();
  return row !== undefined;
}
