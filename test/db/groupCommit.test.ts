import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GROUP_UNDONE_CODE, GroupCommitSqliteDialect } from '../../src/db/sqliteDriver.js';
import { inTransaction } from '../../src/domain/transaction.js';

interface Tables {
  parent: { id: number };
  child: { id: number; parent_id: number };
  item: { id: number; owner: string };
}

// The SQLite driver runs each transaction as a savepoint of a shared outer transaction that
// commits once per group; these tests pin what that must not change.
describe('SQLite group commit', () => {
  let dir: string;
  let file: SQLite.Database;
  let dialect: GroupCommitSqliteDialect;
  let db: Kysely<Tables>;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'group-commit-'));
    file = new SQLite(path.join(dir, 'db.sqlite'));
    file.pragma('journal_mode = WAL');
    file.pragma('foreign_keys = ON');
    dialect = new GroupCommitSqliteDialect(file);
    db = new Kysely<Tables>({ dialect });
    await sql`create table parent (id integer primary key)`.execute(db);
    // Deferred: checked by the outer COMMIT, which lets a test make a group's commit fail.
    await sql`create table child (id integer primary key, parent_id integer not null
      references parent(id) deferrable initially deferred)`.execute(db);
    await sql`create table item (id integer primary key, owner text not null)`.execute(db);
  });

  afterEach(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const insertItem = (id: number) =>
    db.transaction().execute(async (trx) => {
      await trx.insertInto('item').values({ id, owner: 'a' }).execute();
      return id;
    });

  /** What another connection sees: only committed rows. */
  const committedItems = () => {
    const other = new SQLite(path.join(dir, 'db.sqlite'), { readonly: true });
    try {
      return (other.prepare('select id from item order by id').all() as { id: number }[]).map((r) => r.id);
    } finally {
      other.close();
    }
  };

  it('commits concurrent transactions together, and each caller hears only after its commit', async () => {
    const before = { ...dialect.stats };
    const ids = Array.from({ length: 40 }, (_, i) => i + 1);
    const results = await Promise.all(
      ids.map(async (id) => {
        const value = await insertItem(id);
        // By the time a caller is told, another connection must see its row.
        expect(committedItems()).toContain(id);
        return value;
      }),
    );
    expect(results).toEqual(ids);
    expect(committedItems()).toEqual(ids);
    expect(dialect.stats.transactions - before.transactions).toBe(40);
    // 40 transactions queued at once: one commit for the lot, or a few, never one each.
    expect(dialect.stats.commits - before.commits).toBeLessThanOrEqual(3);
  });

  /** One transaction per id, queued at once; the one for `failing` writes, then throws. */
  const fiveWithAFailure = (ids: number[], failing: number) =>
    Promise.allSettled(
      ids.map((id) =>
        db.transaction().execute(async (trx) => {
          await trx.insertInto('item').values({ id, owner: 'a' }).execute();
          if (id === failing) throw new Error('refused');
          await trx.updateTable('item').set({ owner: 'b' }).where('id', '=', id).execute();
        }),
      ),
    );
  const reasons = (outcomes: PromiseSettledResult<unknown>[]) =>
    outcomes.map((o) =>
      o.status === 'fulfilled' ? 'ok' : ((o.reason as { code?: string }).code ?? o.reason.message),
    );

  it('a transaction that fails after it wrote undoes its group: the members before it are told to run again', async () => {
    const outcomes = await fiveWithAFailure([1, 2, 3, 4, 5], 3);
    // 1 and 2 ran without savepoints in the group 3 undid: nothing of theirs stays, and their
    // error says to run them again. 4 and 5 ran after it, each with its own savepoint.
    expect(reasons(outcomes)).toEqual([GROUP_UNDONE_CODE, GROUP_UNDONE_CODE, 'refused', 'ok', 'ok']);
    expect(dialect.stats.undoneGroups).toBe(1);
    expect(committedItems()).toEqual([4, 5]);
    expect(await db.selectFrom('item').select('owner').distinct().execute()).toEqual([{ owner: 'b' }]);
  });

  it('in the second after such a failure, a failing transaction rolls back only its own work', async () => {
    await fiveWithAFailure([1, 2, 3], 3);
    const outcomes = await fiveWithAFailure([11, 12, 13, 14, 15], 13);
    expect(reasons(outcomes)).toEqual(['ok', 'ok', 'refused', 'ok', 'ok']);
    expect(dialect.stats.undoneGroups).toBe(1);
    expect(committedItems()).toEqual([11, 12, 14, 15]);
  });

  it('a transaction that fails having changed nothing lets its group go on', async () => {
    const outcomes = await Promise.allSettled(
      [1, 2, 3, 4, 5, 6].map((id) =>
        db.transaction().execute(async (trx) => {
          if (id === 3) {
            // A compare-and-set that finds nothing to change, then the refusal it leads to.
            await trx.updateTable('item').set({ owner: 'b' }).where('id', '=', 99).execute();
            await trx.updateTable('item').set({ owner: 'b' }).where('id', '=', 99).returning('id').execute();
            throw new Error('refused');
          }
          // An insert the primary key refuses: SQLite undoes the failed statement itself.
          if (id === 5) return trx.insertInto('item').values({ id: 1, owner: 'x' }).execute();
          return trx.insertInto('item').values({ id, owner: 'a' }).execute();
        }),
      ),
    );
    expect(reasons(outcomes)).toEqual(['ok', 'ok', 'refused', 'ok', 'SQLITE_CONSTRAINT_PRIMARYKEY', 'ok']);
    expect(dialect.stats.undoneGroups).toBe(0);
    expect(committedItems()).toEqual([1, 2, 4, 6]);
    expect(await db.selectFrom('item').select('owner').distinct().execute()).toEqual([{ owner: 'a' }]);
  });

  it('a transaction that fails after a statement whose writes it cannot count undoes its group', async () => {
    // DDL does not set SQLite's change count, so it counts as a write whatever it did.
    const outcomes = await Promise.allSettled(
      [1, 2].map((id) =>
        db.transaction().execute(async (trx) => {
          if (id === 1) return trx.insertInto('item').values({ id, owner: 'a' }).execute();
          await sql`create table scratch (id integer)`.execute(trx);
          throw new Error('refused');
        }),
      ),
    );
    expect(reasons(outcomes)).toEqual([GROUP_UNDONE_CODE, 'refused']);
    expect(committedItems()).toEqual([]);
    expect(await sql`select name from sqlite_master where name = 'scratch'`.execute(db)).toEqual({
      rows: [],
    });
  });

  it('inTransaction runs the undone members again: only the failing one fails, and each commits once', async () => {
    // inTransaction as the domain calls it, over this test's own tables.
    const run = inTransaction as unknown as (
      db: Kysely<Tables>,
      work: (trx: Kysely<Tables>) => Promise<unknown>,
    ) => Promise<unknown>;
    const ids = Array.from({ length: 20 }, (_, i) => i + 1);
    const outcomes = await Promise.allSettled(
      ids.map((id) =>
        run(db, async (trx) => {
          await trx.insertInto('item').values({ id, owner: 'a' }).execute();
          if (id === 7) throw new Error('refused');
          return id;
        }),
      ),
    );
    expect(reasons(outcomes)).toEqual(ids.map((id) => (id === 7 ? 'refused' : 'ok')));
    expect(dialect.stats.undoneGroups).toBe(1);
    expect(committedItems()).toEqual(ids.filter((id) => id !== 7));
  });

  it('when the group’s COMMIT fails, every member fails and none of their work stays', async () => {
    const outcomes = await Promise.allSettled([
      insertItem(1),
      insertItem(2),
      // Its child row points at no parent: the deferred key check fails the outer COMMIT.
      db.transaction().execute((trx) => trx.insertInto('child').values({ id: 1, parent_id: 99 }).execute()),
      insertItem(3),
    ]);
    expect(outcomes.every((o) => o.status === 'rejected')).toBe(true);
    expect(committedItems()).toEqual([]);
    expect(await db.selectFrom('child').selectAll().execute()).toEqual([]);
    // The connection is usable again, outside and inside transactions.
    expect(await insertItem(4)).toBe(4);
    expect(committedItems()).toEqual([4]);
  });

  it('reads on their own share one read transaction and answer at once', async () => {
    await insertItem(1);
    const before = { ...dialect.stats };
    const reads = await Promise.all(
      Array.from({ length: 20 }, () => db.selectFrom('item').select('id').execute()),
    );
    expect(reads.every((rows) => rows.length === 1 && rows[0]!.id === 1)).toBe(true);
    expect(dialect.stats.groupedReads - before.groupedReads).toBe(20);
    expect(dialect.stats.commits - before.commits).toBeLessThanOrEqual(2);
  });

  it('a write on its own, even while reads are grouped, is committed when it returns', async () => {
    const read = db.selectFrom('item').select('id').execute();
    await db.insertInto('item').values({ id: 7, owner: 'a' }).execute();
    expect(committedItems()).toEqual([7]);
    // UPDATE ... RETURNING answers rows like a read, but it writes: not a grouped read.
    const before = { ...dialect.stats };
    const updated = await db
      .updateTable('item')
      .set({ owner: 'b' })
      .where('id', '=', 7)
      .returning('owner')
      .execute();
    expect(updated).toEqual([{ owner: 'b' }]);
    expect(dialect.stats.groupedReads).toBe(before.groupedReads);
    const other = new SQLite(path.join(dir, 'db.sqlite'), { readonly: true });
    try {
      expect(other.prepare('select owner from item where id = 7').get()).toEqual({ owner: 'b' });
    } finally {
      other.close();
    }
    expect(await read).toEqual([]);
  });

  it('a statement outside any transaction reads only committed work', async () => {
    const pending = insertItem(1);
    // Queued behind the transaction: by the time it runs, the group must have committed, so
    // what it reads is what any other connection reads.
    const read = db
      .selectFrom('item')
      .select('id')
      .execute()
      .then((rows) => ({ rows: rows.map((r) => r.id), committed: committedItems() }));
    const [, seen] = await Promise.all([pending, read]);
    expect(seen.rows).toEqual([1]);
    expect(seen.committed).toEqual([1]);
  });
});
