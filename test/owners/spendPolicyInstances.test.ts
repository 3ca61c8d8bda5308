import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { type Db, openDatabase } from '../../src/db/database.js';
import { ok } from '../helpers/agentApi.js';
import { TEST_DATABASE_URL, type TestApp } from '../helpers/app.js';
import { agentMe, createAgent } from '../helpers/fixtures.js';
import { createUnthrottledTestApp } from '../helpers/moneyChecks.js';

/**
 * Issue 38: a key's spend limits hold across instances. Two app instances, each with its own
 * connection pool, on one PostgreSQL database take 40 concurrent creates against one key's
 * dailyLimit: the key's counter row and the agent's balance row are compare-and-set in each
 * spend's transaction, so no interleaving of the two instances passes the limit.
 * PostgreSQL only: SQLite is one file of one instance.
 */
describe.skipIf(!TEST_DATABASE_URL)('spend limits across two instances on one PostgreSQL database', () => {
  let t: TestApp;
  let secondDb: Db;
  let second: FastifyInstance;

  beforeAll(async () => {
    t = await createUnthrottledTestApp({ pgPoolSize: 10 });
    // The second instance's own pool on the same schema: its transactions are other connections.
    secondDb = openDatabase({
      databaseUrl: TEST_DATABASE_URL,
      dataDir: t.config.dataDir,
      pgSchema: t.pgSchema,
      pgPoolSize: 10,
    });
    second = await buildApp({
      config: { ...t.config, instanceId: 'second-instance' },
      db: secondDb,
      chain: t.services.chain,
      clock: t.clock,
    });
  });
  afterAll(async () => {
    await second?.close();
    await secondDb?.close();
    await t?.close();
  });

  it('40 concurrent creates over both instances never pass the dailyLimit; the refused escrow nothing', async () => {
    const agent = await createAgent(t, { deposit: '1000' });
    const { keys } = await ok(t, { headers: t.admin }, 'GET', `/admin/agents/${agent.id}/keys`);
    // 140 is not a multiple of a task's total (13): exactly floor(140 / 13) = 10 fit.
    const set = await t.app.inject({
      method: 'PATCH',
      url: `/admin/agents/${agent.id}/keys/${keys[0].id}`,
      headers: t.admin,
      payload: { spendPolicy: { TON: { dailyLimit: '140' } } },
    });
    expect(set.statusCode, set.body).toBe(200);
    const apps = [t.app, second];
    // Both pools open their connections first: on a loaded machine a connection opened mid-race
    // can miss its deadline and answer 503, which is about the machine, not the limit.
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        apps[i % 2]!.inject({ method: 'GET', url: '/agents/me', headers: agent.headers }),
      ),
    );
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        apps[i % 2]!.inject({
          method: 'POST',
          url: '/tasks',
          headers: agent.headers,
          payload: { title: 'Photo', description: 'Of the hall', reward: '10', agentName: 'Scout' },
        }),
      ),
    );
    const created = results.filter((r) => r.statusCode === 201);
    const refused = results.filter((r) => r.statusCode !== 201);
    expect(created).toHaveLength(10);
    expect(refused).toHaveLength(30);
    for (const r of refused) {
      expect(r.statusCode, r.body).toBe(403);
      expect(r.json()).toMatchObject({ limit: 'dailyLimit', currency: 'TON', limitAmount: '140' });
      expect(r.json().error).toMatch(/dailyLimit/);
    }
    const escrowed = created.reduce((sum, r) => sum + Number(r.json().task.totalAmount), 0);
    expect(escrowed).toBe(130);
    expect(escrowed).toBeLessThanOrEqual(140);

    // Nothing escrowed for the refused: only the 10 tasks, their 10 ledger rows, 130 locked.
    const tasks = await t.ctx.db.selectFrom('tasks').select('id').where('agent_id', '=', agent.id).execute();
    expect(tasks).toHaveLength(10);
    const escrows = await t.ctx.db
      .selectFrom('transactions')
      .select('id')
      .where('agent_id', '=', agent.id)
      .where('type', '=', 'TASK_ESCROW')
      .execute();
    expect(escrows).toHaveLength(10);
    const me = await agentMe(t, agent);
    expect(me).toMatchObject({ balance: '870', lockedByTasks: '130' });
    const key = (await ok(t, agent, 'GET', '/agents/me')).apiKey;
    expect(key.spending.TON).toMatchObject({ spentToday: '130', leftToday: '10' });
  });
});
