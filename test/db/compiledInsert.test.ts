import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiledInsert } from '../../src/db/compiledQuery.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createWorker } from '../helpers/fixtures.js';

// compiledInsert keeps one compiled INSERT per set of columns and reuses the last one when the
// next row has the same columns: rows with other columns, in any order, must get their own.
describe('compiledInsert', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('inserts each row with its own columns, leaving out undefined ones, whatever came before', async () => {
    const insert = compiledInsert('wallet_challenges');
    const workerId = (await createWorker(t)).id;
    const base = { worker_id: workerId, expires_at: 'e', created_at: 'c' };
    await insert(t.ctx.db, { payload: 'a', ...base, used_at: 'u1' });
    await insert(t.ctx.db, { payload: 'b', ...base, used_at: undefined });
    await insert(t.ctx.db, { payload: 'c', ...base, used_at: 'u3' });
    // The same columns in another order: values must follow their names, not their places.
    await insert(t.ctx.db, {
      used_at: 'u4',
      created_at: 'c',
      expires_at: 'e',
      worker_id: workerId,
      payload: 'd',
    });
    const rows = await t.ctx.db
      .selectFrom('wallet_challenges')
      .select(['payload', 'used_at', 'expires_at'])
      .where('worker_id', '=', workerId)
      .orderBy('payload')
      .execute();
    expect(rows).toEqual([
      { payload: 'a', used_at: 'u1', expires_at: 'e' },
      { payload: 'b', used_at: null, expires_at: 'e' },
      { payload: 'c', used_at: 'u3', expires_at: 'e' },
      { payload: 'd', used_at: 'u4', expires_at: 'e' },
    ]);
  });
});
