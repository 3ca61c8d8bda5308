import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';

/**
 * Makes integers read the same on both dialects. SQLite (safeIntegers) returns every integer as
 * bigint and pg returns int8 as bigint (see database.ts) and numeric sums as strings. Columns and
 * aliases ending in `_nano` are money and always come out as bigint (never through a float);
 * every other integer comes out as a number.
 *
 * PostgreSQL's rows get the rule from this plugin. The SQLite driver applies the same rule as
 * it builds each row (`normalizeIntegers` in sqliteDriver.ts): a pass over every key of every
 * row afterwards was 2-3% of GET /tasks/:id's CPU, in megamorphic property loads and stores.
 */
export class BigintColumnsPlugin implements KyselyPlugin {
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    for (const row of args.result.rows) normalizeRow(row);
    return args.result;
  }
}

function normalizeRow(row: UnknownRow): void {
  for (const key of Object.keys(row)) {
    const value = row[key];
    const normal = isMoneyColumn(key) ? moneyValue(value) : integerValue(value, key);
    if (normal !== value) row[key] = normal;
  }
}

/** The rule, column by column (the SQLite driver applies it as it builds each row). */
export function isMoneyColumn(name: string): boolean {
  // `_micro`: the USDT-only balance columns (micro-USDT); a `_nano` column holds the smallest
  // unit of its row's currency (migration 0020).
  return name.endsWith('_nano') || name.endsWith('_micro');
}

/** A money column's value: bigint, never through a float; null stays null. */
export function moneyValue(value: unknown): unknown {
  if (value === null || value === undefined || typeof value === 'bigint') return value;
  return BigInt(value as string | number);
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);

/** Any other column's value: an integer as a number, refused past the safe range. */
export function integerValue(value: unknown, name: string): unknown {
  if (typeof value !== 'bigint') return value;
  if (value > MAX_SAFE || value < MIN_SAFE) {
    throw new Error(`Integer column ${name} holds ${value}, beyond a safe number; name it *_nano`);
  }
  return Number(value);
}
