import SQLite from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { BigintColumnsPlugin } from '../../src/db/bigintPlugin.js';
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

  it('with normalizeIntegers, gives what BigintColumnsPlugin makes of the raw rows', async () => {
    // Two connections with the same rows: one dialect per connection, as the app has.
    const own = new SQLite(':memory:');
    own.defaultSafeIntegers(true);
    const normalizing = new Kysely<Record<string, never>>({
      dialect: new GroupCommitSqliteDialect(own, { normalizeIntegers: true }),
    });
    const plugged = db.withPlugin(new BigintColumnsPlugin());
    try {
      for (const f of [file, own]) {
        f.exec(`create table m (id integer primary key, amount_nano integer, fee_nano text, n integer,
          label text, ratio real, data blob, "__proto__" integer)`);
        f.exec(`insert into m values (1, 650000000, '150000000', 7, '12', 0.5, x'01', 3),
          (2, null, null, null, null, null, null, null), (3, 9007199254740993, '0', -2, 'x', 1.0, x'', 0),
          (4, 1, '1', 9007199254740993, null, null, null, null)`);
      }
      for (const query of [
        'select id, amount_nano, fee_nano, n, label, ratio, data from m where id < 4 order by id',
        'select sum(amount_nano) as total_nano, count(*) as count, max(ratio) as top from m',
        'select * from m where id < 4 order by id',
      ]) {
        const rows = (await sql.raw(query).execute(normalizing)).rows;
        expect(rows.length).toBeGreaterThan(0);
        expect(rows).toEqual((await sql.raw(query).execute(plugged)).rows);
      }
      const [first] = (await sql.raw('select * from m where id = 1').execute(normalizing)).rows as Record<
        string,
        unknown
      >[];
      expect(first).toMatchObject({
        id: 1,
        amount_nano: 650000000n,
        fee_nano: 150000000n,
        n: 7,
        label: '12',
      });
      expect(Object.getOwnPropertyDescriptor(first, '__proto__')?.value).toBe(3);
      // An integer past the safe range in a column that is not money is refused, as the plugin does.
      const big = sql.raw('select n from m where id = 4');
      await expect(big.execute(normalizing)).rejects.toThrow(/Integer column n holds 9007199254740993/);
      await expect(big.execute(plugged)).rejects.toThrow(/Integer column n holds 9007199254740993/);
    } finally {
      await normalizing.destroy();
    }
  });
});
