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
 */
export class BigintColumnsPlugin implements KyselyPlugin {
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    this.normalizeRows(args.result.rows);
    return args.result;
  }

  /** The same, synchronously, for rows read without Kysely's executor (atOnce.ts). */
  normalizeRows(rows: unknown[]): void {
    for (const row of rows) normalizeRow(row as UnknownRow);
  }
}

function normalizeRow(row: UnknownRow): void {
  for (const key of Object.keys(row)) {
    const value = row[key];
    if (value === null || value === undefined) continue;
    if (key.endsWith('_nano')) {
      if (typeof value !== 'bigint') row[key] = BigInt(value as string | number);
    } else if (typeof value === 'bigint') {
      if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
        throw new Error(`Integer column ${key} holds ${value}, beyond a safe number; name it *_nano`);
      }
      row[key] = Number(value);
    }
  }
}
