import type { Compilable, CompiledQuery } from 'kysely';
import { rowsAtOnce } from './atOnce.js';
import type { Executor } from './repositories/executor.js';
import type { Database } from './schema.js';

type Run<Row> = (db: Executor, args: readonly unknown[]) => Promise<Row[]>;

/**
 * A query of fixed shape that is built and compiled once per dialect, then run with new values:
 * Kysely otherwise builds its operation tree, runs the plugins over it and prints the SQL on
 * every call, which the benchmark's profile put at about a tenth of a simple request's CPU (a
 * primary-key read measured 28-44 us of CPU through the builder, 18-21 us compiled once).
 *
 * The query is built once with a marker value per argument; each marker must come out as a
 * parameter of the compiled query (else building throws), and a call puts its own values in the
 * markers' places. So only arguments that Kysely passes as parameters may vary: no branching on
 * them, no values spliced into SQL text. Results still get the bigint-columns rule (the plugin on
 * PostgreSQL, the driver on SQLite).
 */
export function compiledOnce<Args extends unknown[], Row>(
  build: (db: Executor, ...args: Args) => Compilable<Row>,
): (db: Executor, ...args: Args) => Promise<Row[]> {
  const run = compiledWith(build.length - 1, (db, args) => build(db, ...(args as Args)));
  return (db, ...args) => run(db, args);
}

/**
 * An INSERT of one row, compiled once per set of columns (a table's inserts nearly always carry
 * the same ones). As with Kysely's `values`, keys whose value is undefined are left out.
 */
export function compiledInsert<T extends keyof Database>(
  table: T,
): (db: Executor, row: { [K in keyof Database[T]]?: unknown }) => Promise<void> {
  const byColumns = new Map<string, Run<unknown>>();
  // The columns of the last insert and its compiled form: a table's inserts nearly always
  // carry the same columns, and comparing names (V8 compares these by reference) costs less
  // than building the signature string and hashing it for the map on every insert.
  let last: { columns: string[]; run: Run<unknown> } | null = null;
  return async (db, row) => {
    const values = row as Record<string, unknown>;
    const columns: string[] = [];
    const args: unknown[] = [];
    for (const column in values) {
      const value = values[column];
      if (value === undefined) continue;
      columns.push(column);
      args.push(value);
    }
    let run = last && sameColumns(last.columns, columns) ? last.run : undefined;
    if (!run) {
      const signature = columns.join(',');
      run = byColumns.get(signature);
      if (!run) {
        run = compiledWith(columns.length, (db, args) =>
          db.insertInto(table).values(Object.fromEntries(columns.map((c, i) => [c, args[i]])) as never),
        );
        byColumns.set(signature, run);
      }
      last = { columns, run };
    }
    await run(db, args);
  };
}

function sameColumns(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function compiledWith<Row>(
  arity: number,
  build: (db: Executor, args: unknown[]) => Compilable<Row>,
): Run<Row> {
  // One compiled form per dialect adapter, which a database and its transactions share.
  const compiled = new WeakMap<object, { query: CompiledQuery<Row>; slots: (number | null)[] }>();
  const compile = (db: Executor) => {
    const markers = Array.from({ length: arity }, (_, i) => `\u0000compiledOnce:${i}\u0000`);
    const query = build(db, markers).compile();
    const slots = query.parameters.map((value) => {
      const index = markers.indexOf(value as string);
      return index < 0 ? null : index;
    });
    for (let i = 0; i < arity; i++) {
      if (!slots.includes(i)) throw new Error(`compiledOnce: argument ${i + 1} is not a query parameter`);
    }
    return { query, slots };
  };
  return async (db, args) => {
    const adapter = db.getExecutor().adapter;
    let entry = compiled.get(adapter);
    if (!entry) {
      entry = compile(db);
      compiled.set(adapter, entry);
    }
    const { query, slots } = entry;
    const parameters = new Array<unknown>(slots.length);
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]!;
      parameters[i] = slot === null ? query.parameters[i] : args[slot];
    }
    // Spelled out rather than spread: V8's generic object clone was 0.6% of GET /tasks/:id.
    const compiledQuery: CompiledQuery<Row> = {
      query: query.query,
      queryId: query.queryId,
      sql: query.sql,
      parameters,
    };
    return rowsAtOnce(db, compiledQuery) ?? (await db.executeQuery<Row>(compiledQuery)).rows;
  };
}
