import SQLite from 'better-sqlite3';
import { Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { GroupCommitSqliteDialect } from '../../src/db/sqliteDriver.js';

interface Tables {
  item: { id: number; owner: string };
}

// SQLite prepares a statement again on every run when its LIMIT is a bound parameter; our
// SQLite dialect's compiler writes whole-number limits into the SQL text instead.
describe('literal LIMITs on SQLite', () => {
  const file = new SQLite(':memory:');
  const db = new Kysely<Tables>({ dialect: new GroupCommitSqliteDialect(file) });
  afterAll(() => db.destroy());

  it('writes a whole-number limit into the SQL and binds everything else', () => {
    const compiled = db.selectFrom('item').selectAll().where('owner', '=', 'a').limit(5).compile();
    expect(compiled.sql).toMatch(/ limit 5$/);
    expect(compiled.parameters).toEqual(['a']);
    expect(db.selectFrom('item').selectAll().limit(7n).compile().sql).toMatch(/ limit 7$/);
  });

  it('leaves anything that is not a safe whole number a parameter', () => {
    for (const limit of ['5; drop table item', 2.5, -1, Number.MAX_SAFE_INTEGER + 2]) {
      const compiled = db
        .selectFrom('item')
        .selectAll()
        .limit(limit as number)
        .compile();
      expect(compiled.sql).toMatch(/ limit \?$/);
      expect(compiled.parameters).toEqual([limit]);
    }
  });

  it('pages as before', async () => {
    await db.schema
      .createTable('item')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('owner', 'text')
      .execute();
    await db
      .insertInto('item')
      .values([1, 2, 3, 4, 5].map((id) => ({ id, owner: 'a' })))
      .execute();
    const page = (limit: number) => db.selectFrom('item').select('id').orderBy('id').limit(limit).execute();
    expect(await page(2)).toEqual([{ id: 1 }, { id: 2 }]);
    expect(await page(4)).toHaveLength(4);
    expect(await page(2)).toHaveLength(2);
  });
});
