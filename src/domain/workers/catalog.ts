import type { WorkerRow } from '../../db/repositories/executor.js';
import {
  type CatalogFilter,
  countCatalog,
  findWorker,
  listCatalog,
  listCatalogByRating,
} from '../../db/repositories/workers.js';
import type { DomainContext } from '../context.js';
import { decodeCursor, encodeCursor, page } from '../cursor.js';
import { invalid, notFound } from '../errors.js';
import { isIdOf } from '../ids.js';
import { formatTon, MAX_REWARD_NANO, parseTon } from '../money/money.js';

export interface CatalogQuery {
  skills?: string;
  country?: string;
  timezone?: string;
  minRate?: number;
  maxRate?: number;
  available?: boolean;
  limit: number;
  cursor?: string;
  /** completed (default): most completed tasks first; rating: best average first. */
  sort?: 'completed' | 'rating';
}

/**
 * GET /agents/workers: listed workers (wallet, headline, skills, available), busiest first. A test
 * key (`livemode` false) sees no real person: its list is empty (test mode keeps real people out).
 */
export async function browseCatalog(ctx: DomainContext, query: CatalogQuery, livemode = true) {
  if (!livemode) return { items: [] as WorkerRow[], nextCursor: null, hasMore: false, total: 0 };
  const filter: CatalogFilter = {
    skills: (query.skills ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .slice(0, 20),
    country: query.country?.trim() || undefined,
    timezone: query.timezone?.trim() || undefined,
    minRateNano: rate('minRate', query.minRate),
    maxRateNano: rate('maxRate', query.maxRate),
    available: query.available ?? true,
  };
  const result =
    query.sort === 'rating'
      ? await pageByRating(ctx, filter, query)
      : await pageByCompleted(ctx, filter, query);
  return { ...result, total: await countCatalog(ctx.db, filter) };
}

async function pageByCompleted(ctx: DomainContext, filter: CatalogFilter, query: CatalogQuery) {
  const values = decodeCursor<[number, string, string]>(query.cursor, ['number', 'string', 'string']);
  const after = values ? { completedTasks: values[0], createdAt: values[1], id: values[2] } : null;
  const rows = await listCatalog(ctx.db, filter, after, query.limit + 1);
  return page(rows, query.limit, (w: WorkerRow) => encodeCursor([w.completed_tasks, w.created_at, w.id]));
}

async function pageByRating(ctx: DomainContext, filter: CatalogFilter, query: CatalogQuery) {
  const values = decodeCursor<[number, number, string, string]>(query.cursor, [
    'number',
    'number',
    'string',
    'string',
  ]);
  const after = values
    ? { ratingSum: values[0], ratingCount: values[1], createdAt: values[2], id: values[3] }
    : null;
  const rows = await listCatalogByRating(ctx.db, filter, after, query.limit + 1);
  return page(rows, query.limit, (w: WorkerRow) =>
    encodeCursor([w.rating_sum, w.rating_count, w.created_at, w.id]),
  );
}

/** GET /agents/workers/:id: a test key gets 404 for every real person, as for an unknown id. */
export async function catalogWorker(ctx: DomainContext, workerId: string, livemode: boolean) {
  if (!livemode) throw notFound('Worker');
  return getWorkerDetail(ctx, workerId);
}

export async function getWorkerDetail(ctx: DomainContext, workerId: string): Promise<WorkerRow> {
  const worker = isIdOf('worker', workerId) ? await findWorker(ctx.db, workerId) : undefined;
  if (!worker) throw notFound('Worker');
  return worker;
}

/**
 * A rate filter is bounded by the highest hourly rate a profile can hold (MAX_REWARD_NANO): a
 * larger one matches nothing anyway, and past 64 bits the databases cannot compare it at all.
 */
function rate(path: string, value: number | undefined): bigint | undefined {
  if (value === undefined) return undefined;
  let nano: bigint;
  try {
    nano = parseTon(value);
  } catch (error) {
    throw invalid(path, (error as Error).message);
  }
  if (nano > MAX_REWARD_NANO) throw invalid(path, `must be at most ${formatTon(MAX_REWARD_NANO)} TON`);
  return nano;
}
