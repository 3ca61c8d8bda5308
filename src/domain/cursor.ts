import { invalid } from './errors.js';

/**
 * Cursors are opaque to callers: base64url of a small JSON array holding the last item's sort
 * key. A cursor that does not decode to the expected shape is a 400, never a silent restart.
 */
export function encodeCursor(values: (string | number)[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

export function decodeCursor<T extends (string | number)[]>(
  cursor: string | undefined,
  shape: ('string' | 'number')[],
): T | null {
  if (cursor === undefined || cursor === '') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const ok =
    Array.isArray(parsed) &&
    parsed.length === shape.length &&
    parsed.every((v, i) => isCursorValue(v, shape[i]));
  if (!ok) throw invalid('cursor', 'is not a cursor this list returned; pass nextCursor unchanged');
  return parsed as T;
}

/**
 * The largest number a cursor carries: every number in a cursor is a count read from a 32-bit
 * `integer` column (completed tasks, rating sum and count), and PostgreSQL refuses a larger
 * parameter compared with such a column ("out of range for type integer").
 */
export const MAX_CURSOR_NUMBER = 2_147_483_647;

/**
 * A decoded cursor is caller input like any other: what this list encodes is ASCII (timestamps and
 * prefixed ids) and whole counts, so anything else (U+0000, which PostgreSQL cannot take in a
 * text parameter, other control characters, 1e300, 1.5, -1) is refused here, before the database.
 */
function isCursorValue(value: unknown, type: 'string' | 'number' | undefined): boolean {
  if (type === 'string')
    return typeof value === 'string' && value.length <= 100 && PRINTABLE_ASCII.test(value);
  return Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= MAX_CURSOR_NUMBER;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Newest-first lists: the cursor is the last item's (createdAt, id). */
export function positionCursor(row: { created_at: string; id: string }): string {
  return encodeCursor([row.created_at, row.id]);
}

export function decodePosition(cursor: string | undefined) {
  const values = decodeCursor<[string, string]>(cursor, ['string', 'string']);
  return values ? { createdAt: values[0], id: values[1] } : null;
}

/** Reads one more row than the page to know whether another page follows. */
export function page<T>(rows: T[], limit: number, cursorOf: (row: T) => string) {
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  return { items, hasMore, nextCursor: hasMore && last ? cursorOf(last) : null };
}
