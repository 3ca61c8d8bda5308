import SQLite from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { GroupCommitSqliteDialect } from '../../src/db/sqliteDriver.js';

// Our SQLite driver reads rows as arrays and builds each object with a function written once
// per statement: the objects must be exactly what better-sqlite3's own object rows were.
describe('rows built from raw SQLite rows', () => {
  const file = new SQLite(':memory:');
  file.defaultSafeIntegers(true);
  const db = new Kysely<Record<string, never>>({ dialect: new GroupCommitSqliteDialect(file) });
  afterAll(() => db.destroy());

  const rows = async (query: string) => (await sql.raw(query).execute(db)).rows;

  it('matches better-sqlite3 object rows for every column type, null, and weird names', async () => {
    file.exec(`create table t (id integer primary key, "a b" text, "quote""d" real, blob blob, big integer)`);
    file.exec(`insert into t values (1, 'x', 1.5, x'00ff', 9007199254740993), (2, null, null, null, -1)`);
    const query = `select *, id * 2 as doubled, count(*) over () from t order by id`;
    expect(await rows(query)).toEqual(file.prepare(query).all());
    expect(await rows('select * from t where id = 3')).toEqual([]);
  });

  it('keeps the last of two columns with one name, as object rows do', async () => {
    expect(await rows('select 1 as a, 2 as a')).toEqual([{ a: 2n }]);
    expect(file.prepare('select 1 as a, 2 as a').all()).toEqual([{ a: 2n }]);
  });

  it('makes a column named __proto__ a property, not the prototype', async () => {
    const [row] = (await rows(`select 'x' as "__proto__", 1 as "constructor"`)) as Record<string, unknown>[];
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(row, '__proto__')?.value).toBe('x');
    expect(Object.keys(row!)).toEqual(['__proto__', 'constructor']);
  });

  it('builds rows for UPDATE ... RETURNING and reports changes for plain writes', async () => {
    file.exec('create table c (id integer primary key, n integer)');
    const inserted = await sql`insert into c (n) values (1), (2)`.execute(db);
    expect(inserted.numAffectedRows).toBe(2n);
    const updated = await sql`update c set n = n + 10 returning id, n`.execute(db);
    expect(updated.rows).toEqual([
      { id: 1n, n: 11n },
      { id: 2n, n: 12n },
    ]);
  });
});
