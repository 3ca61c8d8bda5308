import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, type Transaction } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { rowsAtOnce, whileRunning } from '../../src/db/atOnce.js';
import { BigintColumnsPlugin } from '../../src/db/bigintPlugin.js';
import { GroupCommitSqliteDialect } from '../../src/db/sqliteDriver.js';

interface Tables {
  item: { id: number; amount_nano: bigint; n: number };
}

// Compiled statements on SQLite skip Kysely's connection handling when they can (atOnce.ts):
// the answers must be the ones Kysely's way gives, and a statement must never run inside a
// transaction that is not the caller's.
describe('statements run at once on SQLite', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'handoff-atonce-'));
  const file = new SQLite(path.join(dir, 'db.sqlite'));
  file.defaultSafeIntegers(true);
  file.exec('create table item (id integer primary key, amount_nano integer not null, n integer not null)');
  const db = new Kysely<Tables>({ dialect: new GroupCommitSqliteDialect(file, { normalizeIntegers: true }) });
  afterAll(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });
  const insert = (id: number) =>
    CompiledQuery.raw('insert into item (id, amount_nano, n) values (?, ?, ?)', [id, 5n, 7]);
  const select = CompiledQuery.raw('select * from item order by id', []) as CompiledQuery<Tables['item']>;

  it('reads what Kysely reads (money as bigint, counts as numbers)', async () => {
    expect(rowsAtOnce(db, insert(1))).toEqual([]);
    const now = rowsAtOnce(db, select);
    expect(now).toEqual([{ id: 1, amount_nano: 5n, n: 7 }]);
    expect(now).toEqual((await db.executeQuery(select)).rows);
  });

  it('steps aside (null) for a handle with a plugin, whose result transform it would skip', async () => {
    const withPlugin = db.withPlugin(new BigintColumnsPlugin());
    expect(rowsAtOnce(withPlugin, select)).toBeNull();
    expect((await withPlugin.executeQuery(select)).rows).toEqual([{ id: 1, amount_nano: 5n, n: 7 }]);
  });

  it('queues (null) while a transaction holds the connection, and runs at once after', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const transaction = db.transaction().execute(async (trx) => {
      await trx.executeQuery(insert(2));
      entered();
      await held;
    });
    await inside;
    // The transaction's uncommitted row must not be seen, so the read may not run now.
    expect(rowsAtOnce(db, select)).toBeNull();
    release();
    await transaction;
    expect(rowsAtOnce(db, select)?.map((r) => r.id)).toEqual([1, 2]);
  });

  it('runs a running transaction’s statements in its savepoint, undone when the work fails', async () => {
    let used: Transaction<Tables> | undefined;
    await expect(
      db.transaction().execute((trx) =>
        whileRunning(trx, async () => {
          used = trx;
          expect(rowsAtOnce(trx, insert(3))).toEqual([]);
          expect(rowsAtOnce(trx, select)?.map((r) => r.id)).toEqual([1, 2, 3]);
          throw new Error('the work failed');
        }),
      ),
    ).rejects.toThrow('the work failed');
    expect(rowsAtOnce(db, select)?.map((r) => r.id)).toEqual([1, 2]);
    // Once its work has ended, the transaction is not "running": Kysely's way, which refuses it.
    expect(rowsAtOnce(used!, select)).toBeNull();
    await expect(Promise.resolve().then(() => used!.executeQuery(select))).rejects.toThrow(/rolled back/);
  });

  it('never runs a transaction’s statement at once unless its work is marked running', async () => {
    await db.transaction().execute(async (trx) => {
      expect(rowsAtOnce(trx, insert(4))).toBeNull();
      await trx.executeQuery(insert(4));
    });
    expect(rowsAtOnce(db, select)?.map((r) => r.id)).toEqual([1, 2, 4]);
  });
});
