import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Kysely, Migrator, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDatabase } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrate.js';
import type { Database } from '../../src/db/schema.js';
import { runReviewWindow } from '../../src/domain/trust/reviewWindow.js';
import { call, ok } from '../helpers/agentApi.js';
import { DIALECT, TEST_DATABASE_URL, type TestApp } from '../helpers/app.js';
import { disputedTask, resolve } from '../helpers/disputeApi.js';
import { assignedTask, createAgent, createTask, createWorker, type TestAgent } from '../helpers/fixtures.js';
import { createUnthrottledTestApp } from '../helpers/moneyChecks.js';
import { submittedTask } from '../helpers/submissionApi.js';

/**
 * Migration 0028 gives tasks that ended before it their outcome from their ledger rows. The
 * proof: tasks ended by every path of today's code (which records the outcome as it ends them)
 * are copied, without their outcome, into a database migrated only up to the migration before,
 * and migrating that one must record for each task exactly what the live path recorded.
 */
const BEFORE = '0025_jetton_payouts';
const HOUR = 3_600_000;
/** Copied in this order (each row's references first); columns the old schema lacks are dropped. */
const TABLES = ['owners', 'agents', 'workers', 'tasks', 'transactions', 'events', 'notifications'] as const;
const OUTCOME = [
  'settlement_worker_nano',
  'settlement_fee_nano',
  'settlement_refunded_nano',
  'settled_by',
  'settled_at',
] as const;

describe(`migration 0028 backfills ended tasks’ outcomes on ${DIALECT}`, () => {
  let t: TestApp;
  let agent: TestAgent;
  const ended: string[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    t = await createUnthrottledTestApp();
    agent = await createAgent(t, { name: 'Payer', deposit: '100' });
    const usdt = await call(t, { headers: t.admin }, 'POST', `/admin/agents/${agent.id}/deposits`, {
      amount: '100',
      currency: 'USDT',
    });
    expect(usdt.statusCode, usdt.body).toBe(201);
    const worker = await createWorker(t);
    // An approval, an auto-release, a split, a lost dispute (USDT), a refund, a DELETE.
    const approved = await submittedTask(t, agent, worker, { reward: '3' });
    await ok(t, agent, 'POST', `/tasks/${approved.taskId}/complete`);
    const released = await submittedTask(t, agent, worker, { reward: '2', reviewHours: 1 });
    t.clock.advance(2 * HOUR);
    await runReviewWindow(t.ctx, () => {});
    const split = await disputedTask(t, agent, worker, { reward: '3' });
    expect((await resolve(t, split.dispute.id, '1.8')).statusCode).toBe(200);
    const lost = await disputedTask(t, agent, worker, { reward: '5', currency: 'USDT' });
    expect((await resolve(t, lost.dispute.id, '0')).statusCode).toBe(200);
    const refunded = await assignedTask(t, agent, worker, { reward: '1' });
    await ok(t, agent, 'POST', `/tasks/${refunded.taskId}/refund`);
    const deleted = await createTask(t, agent, { reward: '0.5' });
    expect((await call(t, agent, 'DELETE', `/tasks/${deleted.id}`)).statusCode).toBe(200);
    await createTask(t, agent, { reward: '0.7' });
    ended.push(approved.taskId, released.taskId, split.taskId, lost.taskId, refunded.taskId, deleted.id);
  });
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
    await t.close();
  });

  const outcomes = (db: Kysely<Database>) =>
    db
      .selectFrom('tasks')
      .select(['id', 'status', ...OUTCOME])
      .orderBy('id')
      .execute();

  it('records what the live paths recorded, for every ended task, and nothing for open ones', async () => {
    const live = await outcomes(t.ctx.db);
    expect(live.filter((r) => r.settled_by !== null).map((r) => r.id)).toEqual([...ended].sort());
    expect(live.map((r) => r.settled_by)).toEqual(
      expect.arrayContaining(['agent', 'auto', 'operator', 'operator', 'agent', 'agent', null]),
    );
    const old = await oldDatabase();
    await copyInto(old.db);
    // The auto-release is known here by its task.completed event alone (autoReleased).
    await old.db.deleteFrom('notifications').where('kind', '=', 'auto_released').execute();
    await migrate(old.db);
    expect(await outcomes(old.db)).toEqual(live);
    // The rule holds on the migrated table too.
    await expect(
      sql`update tasks set settled_by = null where id = ${ended[0]!}`.execute(old.db),
    ).rejects.toThrow(/check|constraint/i);
  });

  it('refuses, naming the task and changing nothing, when a task’s ledger does not add up', async () => {
    const old = await oldDatabase();
    await copyInto(old.db);
    const [refund] = await old.db
      .selectFrom('transactions')
      .select(['id', 'task_id'])
      .where('type', '=', 'REFUND')
      .where('task_id', '=', ended[4]!)
      .execute();
    expect(refund).toBeDefined();
    await sql`update transactions set amount_nano = amount_nano - 1 where id = ${refund!.id}`.execute(old.db);
    // The auto-release is known here by the worker's notification alone.
    await old.db
      .deleteFrom('events')
      .where('type', '=', 'task.completed')
      .where('task_id', '=', ended[1]!)
      .execute();
    await expect(migrate(old.db)).rejects.toThrow(
      `tasks ${ended[4]} ended with ledger rows that do not add up to their total`,
    );
    // Nothing of 0028 was applied: put the row right and the migration runs.
    await sql`update transactions set amount_nano = amount_nano + 1 where id = ${refund!.id}`.execute(old.db);
    await migrate(old.db);
    expect(await outcomes(old.db)).toEqual(await outcomes(t.ctx.db));
  });

  /** An empty database of this dialect, migrated up to the migration before 0028. */
  async function oldDatabase(): Promise<Db & { schema?: string }> {
    let db: Db & { schema?: string };
    if (TEST_DATABASE_URL) {
      const schema = `backfill_${randomBytes(6).toString('hex')}`;
      await adminQuery(`create schema ${schema}`);
      db = { ...openDatabase({ databaseUrl: TEST_DATABASE_URL, dataDir: '', pgSchema: schema }), schema };
      cleanups.push(async () => {
        await db.close();
        await adminQuery(`drop schema ${schema} cascade`);
      });
    } else {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'handoff-backfill-'));
      db = openDatabase({ databaseUrl: null, dataDir: dir });
      cleanups.push(async () => {
        await db.close();
        rmSync(dir, { recursive: true, force: true });
      });
    }
    const { error } = await migrator(db.db, db.schema).migrateTo(BEFORE);
    expect(error).toBeUndefined();
    return db;
  }

  function migrator(db: Kysely<Database>, schema?: string) {
    return new Migrator({
      db,
      provider: { getMigrations: async () => migrations },
      ...(schema ? { migrationTableSchema: schema } : {}),
    });
  }

  async function migrate(db: Kysely<Database>) {
    const { error, results } = await migrator(db, await currentSchema(db)).migrateToLatest();
    if (error) throw error;
    expect(results?.every((r) => r.status === 'Success')).toBe(true);
  }

  /** Every row of the copied tables, without the columns the old schema does not have. */
  async function copyInto(target: Kysely<Database>) {
    const schema = await currentSchema(target);
    const tables = await target.introspection.getTables();
    for (const table of TABLES) {
      const found = tables.find((x) => x.name === table && x.schema === schema);
      expect(found, table).toBeDefined();
      const columns = new Set(found?.columns.map((c) => c.name));
      const rows = await t.ctx.db.selectFrom(table).selectAll().execute();
      for (const row of rows as Record<string, unknown>[]) {
        const kept = Object.fromEntries(Object.entries(row).filter(([k]) => columns.has(k)));
        // biome-ignore lint/suspicious/noExplicitAny: rows of any table, copied column by column
        const values = kept as any;
        await target.insertInto(table).values(values).execute();
      }
    }
  }
});

/** The PostgreSQL schema the connection works in; undefined on SQLite. */
async function currentSchema(db: Kysely<Database>): Promise<string | undefined> {
  if (!TEST_DATABASE_URL) return undefined;
  return (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]?.s;
}

async function adminQuery(text: string) {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL ?? undefined });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
