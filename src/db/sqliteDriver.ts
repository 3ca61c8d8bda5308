import type { Database as SqliteFile, Statement } from 'better-sqlite3';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type Kysely,
  type Dialect as KyselyDialect,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
} from 'kysely';
import { integerValue, isMoneyColumn, moneyValue } from './bigintPlugin.js';
import { LiteralLimitsSqliteQueryCompiler } from './literalLimits.js';

/**
 * Distinct SQL texts kept prepared, the oldest dropped first (reordering on every hit cost more
 * than an occasional prepare): the app has a few hundred, and paged lists one per page size in
 * use (literalLimits.ts), so this rarely evicts.
 */
const MAX_STATEMENTS = 2000;

/**
 * Counts a test can read: transactions run, COMMITs that carried them, and reads outside
 * transactions served inside a shared read transaction.
 */
export interface GroupCommitStats {
  transactions: number;
  commits: number;
  groupedReads: number;
  /** Groups undone because a member without a savepoint failed after it wrote. */
  undoneGroups: number;
}

/**
 * A member of a group that was undone because another member failed after it wrote: nothing of
 * it was committed or acknowledged, and running it again is safe (inTransaction does).
 */
export const GROUP_UNDONE_CODE = 'HANDOFF_SQLITE_GROUP_UNDONE';
export class GroupUndoneError extends Error {
  readonly code = GROUP_UNDONE_CODE;
  constructor() {
    super('Another transaction in this one’s commit group failed, so the group was undone; run it again');
  }
}

/**
 * How long after a member failed having written every member opens a savepoint of its own again.
 * The members that failure undid run again at once, inside that second, so another member's
 * failure cannot undo them a second time; failures that keep coming keep the savepoints on. A
 * second is many groups at any load where grouping matters.
 */
const CAREFUL_MS = 1000;

/**
 * The embedded SQLite database as a Kysely dialect whose transactions commit in groups.
 *
 * SQLite has one connection, so transactions already run one after another. What each one
 * paid on its own was its COMMIT: the benchmark's profile put a third of POST /tasks' CPU
 * there (a WAL frame written for every page the transaction dirtied, then the lock dance),
 * and the transactions of concurrent requests dirty the same pages (the tasks table's last
 * leaf, its indexes, the agent's row). Here each transaction runs inside one open outer
 * transaction, and the outer one commits once nobody is waiting for the connection:
 * everything that queued up while the first ran commits with it, writing each page once.
 *
 * What does not change:
 * - Nobody is told a transaction succeeded before the COMMIT that carries it: releasing the
 *   connection waits for the group's commit, and if it fails every member fails with it (their
 *   work is gone together, none of it was acknowledged).
 * - A transaction that fails leaves nothing of its own work behind, and the others' work is
 *   either kept or undone as a whole with a GroupUndoneError, which inTransaction answers by
 *   running them again (below).
 * - Nothing outside a transaction sees uncommitted work: a statement run on its own first
 *   commits the open group, then runs in autocommit as before.
 * Members see the work of the members before them, which is what running them one after
 * another meant already; they commit or fail together.
 *
 * Members run without a savepoint of their own. A savepoint made each of them copy every page it
 * first touched into the sub-journal, in case it had to be undone alone: a tenth of POST /tasks'
 * server CPU (interleaved runs: 14,322, 14,224 and 14,058 req/s without, 12,923, 13,061 and
 * 11,943 with; 68-70 against 75-81 us of server CPU a request). A failure after a write is the
 * exception (input is checked before a transaction begins; what fails inside one, such as a
 * balance too low for a task, is rare beside the groups committed), so undoing alone is paid
 * for when it happens instead:
 * - a member that fails having written nothing (its failed compare-and-set wrote no row) is let
 *   go, and the group goes on;
 * - one that fails after it wrote undoes the whole group: ROLLBACK, and the members before it,
 *   waiting for the COMMIT, fail with GroupUndoneError and run again. For the next CAREFUL_MS
 *   every member opens its own savepoint again and a failure rolls back to it alone, so a
 *   stream of failures costs what savepoints cost, not a group each.
 *
 * Reads outside transactions are grouped too. Each one on its own takes and drops SQLite's WAL
 * read lock (file-lock system calls and a stat: 15.7 us for two primary-key reads, against
 * 1.1 us for the same two inside a transaction, measured on this machine), so a read that finds
 * no group open begins a read-only one, and the reads queued behind it run in it until it
 * commits. A read-only statement (better-sqlite3's `readonly`, which an UPDATE ... RETURNING is
 * not) sees committed work only, so it answers at once; once a transaction has joined the group,
 * the next statement on its own commits the group first, as above. A statement on its own that
 * writes always runs in autocommit.
 */
export class GroupCommitSqliteDialect implements KyselyDialect {
  readonly #file: SqliteFile;
  readonly #options: DriverOptions;
  readonly stats: GroupCommitStats = { transactions: 0, commits: 0, groupedReads: 0, undoneGroups: 0 };
  #driver: GroupCommitDriver | null = null;

  constructor(file: SqliteFile, options: DriverOptions = {}) {
    this.#file = file;
    this.#options = options;
  }

  createDriver(): Driver {
    this.#driver = new GroupCommitDriver(this.#file, this.stats, this.#options);
    return this.#driver;
  }

  /** See GroupCommitDriver.runAtOnce; null before Kysely made the driver. */
  runAtOnce(query: CompiledQuery, inTransaction: boolean): QueryResult<unknown> | null {
    return this.#driver?.runAtOnce(query, inTransaction) ?? null;
  }
  createQueryCompiler() {
    // Whole-number LIMITs in the SQL text: SQLite re-prepares a statement whose LIMIT is bound.
    return new LiteralLimitsSqliteQueryCompiler();
  }
  createAdapter() {
    return new GroupCommitSqliteAdapter(this);
  }
  createIntrospector(db: Kysely<unknown>) {
    return new SqliteIntrospector(db);
  }
}

export interface DriverOptions {
  /**
   * Rows come out as BigintColumnsPlugin makes them (money as bigint, other integers as
   * numbers), applied as each row is built; without it, as better-sqlite3 gives them.
   */
  normalizeIntegers?: boolean;
}

/** SQLite's adapter, knowing its dialect: how atOnce.ts finds the driver of a Kysely handle. */
export class GroupCommitSqliteAdapter extends SqliteAdapter {
  constructor(readonly dialect: GroupCommitSqliteDialect) {
    super();
  }
}

/** The outer transaction and the members waiting for its COMMIT. */
class Group {
  /** False while only reads on their own have run in it: then it holds nothing uncommitted. */
  joined = false;
  readonly committed: Promise<void>;
  resolve!: () => void;
  reject!: (error: unknown) => void;
  constructor() {
    this.committed = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // A group nobody waits on (all its members rolled back) must not be an unhandled rejection.
    this.committed.catch(() => {});
  }
}

/** First come, first served: the commit queues behind the transactions already waiting. */
class FifoMutex {
  #held = false;
  get held(): boolean {
    return this.#held;
  }
  readonly #waiting: (() => void)[] = [];
  lock(): Promise<void> {
    if (!this.#held) {
      this.#held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }
  unlock(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#held = false;
  }
}

const SAVEPOINT = 'member';

class GroupCommitDriver implements Driver {
  readonly #file: SqliteFile;
  readonly #stats: GroupCommitStats;
  readonly #normalizeIntegers: boolean;
  readonly #statements = new Map<string, Prepared>();
  readonly #mutex = new FifoMutex();
  readonly #connection: DatabaseConnection;
  /** The outer transaction open on the connection, if any. */
  #group: Group | null = null;
  /** The group the connection's current holder joined, which its release waits for. */
  #joined: Group | null = null;
  /** True while the holder is inside its own transaction. */
  #inMember = false;
  /** Whether the holder's transaction opened a savepoint of its own (see CAREFUL_MS). */
  #memberSavepoint = false;
  /** Whether the holder's transaction has changed anything yet. */
  #memberWrote = false;
  /** Until when members open savepoints again, after a member failed having written. */
  #carefulUntilMs = 0;
  #commitQueued = false;
  #destroyed = false;

  constructor(file: SqliteFile, stats: GroupCommitStats, options: DriverOptions) {
    this.#file = file;
    this.#stats = stats;
    this.#normalizeIntegers = options.normalizeIntegers ?? false;
    this.#connection = {
      executeQuery: async <R>(query: CompiledQuery) =>
        (this.#inMember
          ? this.#run(this.#prepare(query.sql), query)
          : this.#runOnItsOwn(query)) as QueryResult<R>,
      streamQuery: () => {
        throw new Error('The SQLite driver does not stream; read a page at a time');
      },
    };
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#mutex.lock();
    this.#joined = null;
    return this.#connection;
  }

  async beginTransaction(): Promise<void> {
    if (!this.#group) {
      this.#exec('begin');
      this.#group = new Group();
    }
    this.#group.joined = true;
    this.#memberSavepoint = performance.now() < this.#carefulUntilMs;
    if (this.#memberSavepoint) this.#exec(`savepoint ${SAVEPOINT}`);
    this.#memberWrote = false;
    this.#inMember = true;
    this.#joined = this.#group;
    this.#stats.transactions++;
  }

  async commitTransaction(): Promise<void> {
    this.#inMember = false;
    if (this.#memberSavepoint) this.#exec(`release ${SAVEPOINT}`);
    this.#queueCommit();
  }

  async rollbackTransaction(): Promise<void> {
    this.#inMember = false;
    // Its own work is undone and it reports its own error: it waits for nobody's commit.
    this.#joined = null;
    if (this.#memberWrote) this.#carefulUntilMs = performance.now() + CAREFUL_MS;
    try {
      if (!this.#file.inTransaction) throw new Error('the outer transaction is gone');
      if (this.#memberSavepoint) {
        this.#exec(`rollback to ${SAVEPOINT}`);
        this.#exec(`release ${SAVEPOINT}`);
      } else if (this.#memberWrote) {
        this.#undoGroup();
        return;
      }
      this.#queueCommit();
    } catch {
      // SQLite rolled the whole outer transaction back (an I/O error, a full disk), or the
      // savepoint cannot be undone alone: the members before this one lose their work too,
      // so they must fail rather than report a success.
      this.#abandonGroup(
        this.#group,
        new Error('The database rolled back a group of transactions after an error; try again'),
      );
    }
  }

  async releaseConnection(): Promise<void> {
    const joined = this.#joined;
    this.#joined = null;
    this.#mutex.unlock();
    if (joined) await joined.committed;
  }

  /**
   * A statement run now, without the promises of Kysely's connection handling (about ten per
   * statement), or null, and the caller goes the usual way:
   * - on its own: when nobody holds the connection, what acquiring it, running the statement and
   *   releasing it would do (null while a transaction holds it or waits: the caller queues);
   * - in a transaction (the caller vouches it is the running one, atOnce.ts): inside its
   *   transaction, as executeQuery would run it (null unless a transaction is running).
   */
  runAtOnce(query: CompiledQuery, inTransaction: boolean): QueryResult<unknown> | null {
    if (this.#destroyed) return null;
    if (inTransaction) return this.#inMember ? this.#run(this.#prepare(query.sql), query) : null;
    if (this.#mutex.held) return null;
    return this.#runOnItsOwn(query);
  }

  async destroy(): Promise<void> {
    this.#destroyed = true;
    await this.#mutex.lock();
    try {
      if (this.#group) this.#commitGroup();
    } finally {
      this.#mutex.unlock();
    }
    this.#file.close();
  }

  /**
   * Commits the open group once the transactions already waiting for the connection have run
   * (they join it). setImmediate lets the requests read in this turn of the event loop queue
   * their transactions first.
   */
  #queueCommit(): void {
    if (this.#commitQueued) return;
    this.#commitQueued = true;
    setImmediate(() => {
      void this.#mutex.lock().then(() => {
        this.#commitQueued = false;
        try {
          if (this.#group) this.#commitGroup();
        } finally {
          this.#mutex.unlock();
        }
      });
    });
  }

  /** Runs with the connection held and no member running. */
  #commitGroup(): void {
    const group = this.#group;
    if (!group) return;
    this.#group = null;
    try {
      this.#exec('commit');
      this.#stats.commits++;
      group.resolve();
    } catch (error) {
      this.#abandonGroup(group, error instanceof Error ? error : new Error(String(error)));
    }
  }

  /**
   * A member without a savepoint failed after it wrote: its work can only be undone with the
   * group's. The members before it fail with GroupUndoneError, which says to run them again.
   */
  #undoGroup(): void {
    const group = this.#group;
    this.#group = null;
    this.#stats.undoneGroups++;
    try {
      this.#exec('rollback');
    } finally {
      group?.reject(new GroupUndoneError());
    }
  }

  /** Rolls the outer transaction back (if SQLite has not already) and fails its members. */
  #abandonGroup(group: Group | null, error: Error): void {
    this.#group = null;
    try {
      if (this.#file.inTransaction) this.#exec('rollback');
    } finally {
      group?.reject(error);
    }
  }

  /**
   * A statement outside any transaction. It must neither see nor join uncommitted work: a group
   * that a transaction joined is committed first. A read then runs in the open read-only group,
   * or begins one; a write runs in autocommit.
   */
  #runOnItsOwn(query: CompiledQuery): QueryResult<unknown> {
    const prepared = this.#prepare(query.sql);
    const { readonly } = prepared;
    if (this.#group && (this.#group.joined || !readonly)) this.#commitGroup();
    if (!readonly) return this.#run(prepared, query);
    if (!this.#group) {
      this.#exec('begin');
      this.#group = new Group();
      this.#queueCommit();
    }
    this.#stats.groupedReads++;
    return this.#run(prepared, query);
  }

  #exec(sql: string): void {
    this.#prepare(sql).statement.run();
  }

  #run(prepared: Prepared, query: CompiledQuery): QueryResult<unknown> {
    const { statement, row } = prepared;
    const parameters = query.parameters as unknown[];
    if (row) {
      const raw = statement.all(parameters) as unknown[][];
      this.#noteWrite(prepared, raw.length);
      const rows = new Array<unknown>(raw.length);
      for (let i = 0; i < raw.length; i++) rows[i] = row(raw[i]!);
      return { rows };
    }
    const { changes, lastInsertRowid } = statement.run(parameters);
    this.#noteWrite(prepared, changes);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }

  /**
   * Whether the running member has now changed something: a statement that is not read-only
   * did, if it reported rows (changed, or returned by RETURNING, one per changed row), or if it
   * is not an INSERT, UPDATE or DELETE, whose reports alone say so (see Prepared.dml).
   */
  #noteWrite({ readonly, dml }: Prepared, reported: number): void {
    if (this.#inMember && !readonly) this.#memberWrote ||= reported > 0 || !dml;
  }

  /** Prepared statements reused by SQL text: preparing anew cost a fifth of a simple request. */
  #prepare(sql: string): Prepared {
    let prepared = this.#statements.get(sql);
    if (!prepared) {
      prepared = prepare(this.#file, sql, this.#normalizeIntegers);
      if (this.#statements.size >= MAX_STATEMENTS) {
        const oldest = this.#statements.keys().next().value;
        if (oldest !== undefined) this.#statements.delete(oldest);
      }
      this.#statements.set(sql, prepared);
    }
    return prepared;
  }
}

/** A statement kept prepared, with the function that turns one of its raw rows into an object. */
interface Prepared {
  statement: Statement;
  /** Null for a statement that returns no rows. */
  row: RowBuilder | null;
  /** better-sqlite3's `readonly`, read once: it is a native getter, and #run asks on every run. */
  readonly: boolean;
  /**
   * An INSERT, UPDATE or DELETE: the rows it reports (changed, or returned by RETURNING, one per
   * changed row) say whether it wrote. Anything else that is not read-only (DDL, a WITH ...
   * UPDATE) counts as a write: SQLite's change count is not set by it, and guessing wrong would
   * let a failed member keep its work.
   */
  dml: boolean;
}

const DML = /^\s*(insert|update|delete)\s/i;

/**
 * Rows come from SQLite as arrays (better-sqlite3's raw mode) and become objects here, through
 * a function written once per statement that builds every row with one object literal. The
 * default object rows cost more: better-sqlite3 looks each column's name up in V8's string
 * table and adds it as a property, row after row (1.8 us of the task read's 4.3 us in a loop).
 * As with the default, a name that appears twice keeps its last column's value. With
 * `normalizeIntegers`, each value passes through the rule of its column as the literal is built.
 */
function prepare(file: SqliteFile, sql: string, normalizeIntegers: boolean): Prepared {
  const statement = file.prepare(sql);
  const kind = { readonly: statement.readonly, dml: DML.test(sql) };
  if (!statement.reader) return { statement, row: null, ...kind };
  const names = statement.columns().map((column) => column.name);
  statement.raw(true);
  return { statement, row: rowBuilder(names, normalizeIntegers), ...kind };
}

type RowBuilder = (values: unknown[]) => Record<string, unknown>;

function rowBuilder(names: readonly string[], normalizeIntegers: boolean): RowBuilder {
  const value = (name: string, v: unknown) =>
    !normalizeIntegers ? v : isMoneyColumn(name) ? moneyValue(v) : integerValue(v, name);
  // In an object literal `"__proto__": v` would set the prototype instead of a property.
  if (names.includes('__proto__')) {
    return (values) => {
      const row: Record<string, unknown> = {};
      for (let i = 0; i < names.length; i++)
        Object.defineProperty(row, names[i]!, {
          value: value(names[i]!, values[i]),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      return row;
    };
  }
  const field = (name: string, i: number) => {
    const key = JSON.stringify(name);
    if (!normalizeIntegers) return `${key}: v[${i}]`;
    return isMoneyColumn(name) ? `${key}: money(v[${i}])` : `${key}: integer(v[${i}], ${key})`;
  };
  const fields = names.map(field).join(', ');
  const make = new Function('money', 'integer', `return (v) => ({ ${fields} });`);
  return make(moneyValue, integerValue) as RowBuilder;
}
