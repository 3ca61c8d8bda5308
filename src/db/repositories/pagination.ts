import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import type { Position } from './executor.js';

/**
 * Keyset condition for newest-first lists ordered by (created_at desc, id desc): rows strictly
 * after `pos` in that order. Written as an explicit OR so both dialects use the index.
 */
export function olderThan(pos: Position, table?: string) {
  const createdAt = sql.ref(table ? `${table}.created_at` : 'created_at');
  const id = sql.ref(table ? `${table}.id` : 'id');
  // biome-ignore lint/suspicious/noExplicitAny: the condition works for any table with these columns
  return (eb: ExpressionBuilder<any, any>): Expression<SqlBool> =>
    eb.or([
      eb(createdAt, '<', pos.createdAt),
      eb.and([eb(createdAt, '=', pos.createdAt), eb(id, '<', pos.id)]),
    ]);
}
