/**
 * The floor under SQLite POST /tasks: a bare Fastify POST route, with the body schema's three
 * fields, that runs the five statements POST /tasks commits (bench/pgbench-create-task.sql's
 * transaction: the agent read, the task, ledger and event inserts, the compare-and-set on the
 * balance) on the app's own schema, straight on better-sqlite3, and commits the statements
 * of one event-loop turn together as the app's driver does (src/db/sqliteDriver.ts), with the
 * app's pragmas and background checkpoints. What it leaves out is everything else the app does:
 * authentication, rate limits, validation, idempotency, the domain, Kysely. So it is
 * as fast as POST /tasks could be with this schema on this machine: a reference row, measured
 * beside the ceiling, that says how much of the gap to the ceiling is the database's writes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Database as SqliteFile, Statement } from 'better-sqlite3';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Compilable } from 'kysely';
import { startBackgroundCheckpoints } from '../src/db/checkpointer.js';
import { openDatabase, openSqliteFile } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import type { Executor } from '../src/db/repositories/executor.js';
import { newId } from '../src/domain/ids.js';
import type { TASK_BODY } from './fixtures.js';
import { listen, type RunningServer, TASK_ANSWER } from './servers.js';

const REWARD_NANO = 500_000_000n;
const FEE_NANO = 150_000_000n;
const TOTAL_NANO = REWARD_NANO + FEE_NANO;
/** As bench/fixtures.ts's agent: more than the longest run can spend. */
const BALANCE_NANO = 10n ** 18n;

const BODY_SCHEMA = {
  type: 'object',
  required: ['title', 'description', 'reward'],
  properties: { title: { type: 'string' }, description: { type: 'string' }, reward: { type: 'string' } },
} as const;

/** A floor's database: the app's schema and settings, one funded agent, nothing else. */
export interface FloorDatabase {
  file: SqliteFile;
  agentId: string;
  /** The floor agent's API key (its api_key_spend row counts each escrow, as the app's does). */
  keyId: string;
  insertTask: Statement;
  /** The SQL text of the queries given to openFloorDatabase, as the app's dialect compiles them. */
  sql: string[];
  close(): Promise<void>;
}

/** The task row POST /tasks writes, in insertTask's column order. */
export function taskValues(taskId: string, agentId: string, title: string, description: string, at: string) {
  return [
    ...[taskId, agentId, title, description, REWARD_NANO, FEE_NANO, TOTAL_NANO, 'FUNDED', 'DEPOSITED', 7],
    ...[null, null, null, null, at, at, null, null, null, null],
  ];
}

/**
 * `queries` are built on the app's own handle, which migrates the file first: a floor that runs
 * them gets the very SQL the app's driver prepares.
 */
export async function openFloorDatabase(
  prefix: string,
  queries: (db: Executor) => Compilable<unknown>[] = () => [],
): Promise<FloorDatabase> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), prefix));
  // The schema comes from the app's migrations, so a floor writes and reads the same B-trees.
  const schema = openDatabase({ databaseUrl: null, dataDir });
  await migrateToLatest(schema.db);
  const sql = queries(schema.db).map((query) => query.compile().sql);
  await schema.close();
  const filePath = path.join(dataDir, 'handoff.sqlite');
  const file = openSqliteFile(filePath);
  const checkpoints = startBackgroundCheckpoints(file, filePath);

  const agentId = newId('agent');
  const created = new Date().toISOString();
  file
    .prepare(
      'insert into agents (id, name, balance_nano, deposited_nano, created_at, updated_at) values (?, ?, ?, ?, ?, ?)',
    )
    .run(agentId, 'Floor agent', BALANCE_NANO, BALANCE_NANO, created, created);
  // The key the app's POST /tasks is called with: its spend row is counted on every escrow.
  const keyId = newId('apiKey');
  file
    .prepare(
      'insert into api_keys (id, agent_id, key_hash, key_ciphertext, key_hint, created_at, revoked_at) values (?, ?, ?, ?, ?, ?, null)',
    )
    .run(keyId, agentId, `floor-${keyId}`, 'floor', 'floor', created);
  const insertTask = file.prepare(
    'insert into tasks (id, agent_id, title, description, reward_nano, fee_nano, total_nano, status, payment_status, execution_deadline_days, deadline, execution_deadline, webhook_url, worker_id, created_at, updated_at, assigned_at, completed_at, cancelled_at, cancel_reason) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  return {
    file,
    agentId,
    keyId,
    insertTask,
    sql,
    close: async () => {
      await checkpoints.stop();
      if (file.inTransaction) file.exec('commit');
      file.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * One outer transaction per event-loop turn, as the app's driver groups statements
 * (src/db/sqliteDriver.ts): the turn's first `join` begins it, and it commits once the turn's
 * requests have run; a write's answer waits for that commit (`committed`), a read's need not.
 */
export function turnCommits(file: SqliteFile) {
  let waiting: (() => void)[] = [];
  const commit = () => {
    file.exec('commit');
    const answered = waiting;
    waiting = [];
    for (const answer of answered) answer();
  };
  return {
    /** Begins the turn's transaction if none is open. */
    join() {
      if (!file.inTransaction) {
        file.exec('begin');
        setImmediate(commit);
      }
    },
    /** Resolves once the transaction joined is committed. */
    committed: () => new Promise<void>((resolve) => waiting.push(resolve)),
  };
}

export async function startFloor(): Promise<FloorServer> {
  const database = await openFloorDatabase('handoff-floor-');
  const { file, agentId, keyId, insertTask } = database;
  const readAgent = file.prepare('select * from agents where id = ?');
  const lockFunds = file.prepare(
    'update agents set balance_nano = balance_nano - ?, locked_nano = locked_nano + ?, updated_at = ? where id = ? and balance_nano >= ? returning *',
  );
  const insertLedgerRow = file.prepare(
    'insert into transactions (id, agent_id, task_id, type, amount_nano, from_address, to_address, tx_hash, status, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const insertEvent = file.prepare(
    'insert into events (id, agent_id, task_id, type, data_json, created_at) values (?, ?, ?, ?, ?, ?)',
  );
  // The key's spend counter, as keySpend.ts counts it (one upsert, its limits checked in SQL).
  const countSpend = file.prepare(
    `insert into api_key_spend (key_id, currency, max_task_nano, daily_limit_nano, monthly_limit_nano, approval_above_nano, day, day_spent_nano, month, month_spent_nano, updated_at)
     values (?, 'TON', null, null, null, null, ?, ?, ?, ?, ?)
     on conflict (key_id, currency) do update set
       day_spent_nano = (case when api_key_spend.day = excluded.day then api_key_spend.day_spent_nano else 0 end) + excluded.day_spent_nano,
       day = excluded.day,
       month_spent_nano = (case when api_key_spend.month = excluded.month then api_key_spend.month_spent_nano else 0 end) + excluded.month_spent_nano,
       month = excluded.month,
       updated_at = excluded.updated_at
     where (api_key_spend.max_task_nano is null or excluded.day_spent_nano <= api_key_spend.max_task_nano)
       and (api_key_spend.daily_limit_nano is null or (case when api_key_spend.day = excluded.day then api_key_spend.day_spent_nano else 0 end) + excluded.day_spent_nano <= api_key_spend.daily_limit_nano)
     returning key_id`,
  );
  const turn = turnCommits(file);

  const createTask = (title: string, description: string) => {
    turn.join();
    const at = new Date().toISOString();
    const agent = readAgent.get(agentId) as { name: string };
    const taskId = newId('task');
    insertTask.run(...taskValues(taskId, agentId, title, description, at));
    insertLedgerRow.run(
      newId('transaction'),
      agentId,
      taskId,
      'TASK_ESCROW',
      TOTAL_NANO,
      null,
      null,
      null,
      'confirmed',
      at,
      at,
    );
    const data = { taskId, deposit: { amount: '0.65', txHash: null, currency: 'TON' } };
    insertEvent.run(newId('event'), agentId, taskId, 'task.funded', JSON.stringify(data), at);
    if (!lockFunds.get(TOTAL_NANO, TOTAL_NANO, at, agentId, TOTAL_NANO)) {
      throw new Error('the floor agent ran out of balance');
    }
    countSpend.get(keyId, at.slice(0, 10), TOTAL_NANO, at.slice(0, 7), TOTAL_NANO, at);
    return { id: taskId, agentName: agent.name, at };
  };

  // POST /tasks' answer is GET /tasks/:id's without the applications, with the new task's values.
  const { applications: _, ...createdFields } = TASK_ANSWER.task;
  const app = Fastify({ logger: false });
  app.post<{ Body: typeof TASK_BODY }>(
    '/tasks',
    { schema: { body: BODY_SCHEMA } },
    async (request, reply) => {
      const { title, description, reward } = request.body;
      const task = createTask(title, description);
      await turn.committed();
      return reply.status(201).send({
        task: {
          ...createdFields,
          id: task.id,
          title,
          description,
          reward,
          createdAt: task.at,
          updatedAt: task.at,
          agent: { id: agentId, name: task.agentName },
          // The floors serve a live agent's tasks (test mode's twins are not measured).
          livemode: true,
        },
      });
    },
  );
  return serveFloor(app, database);
}

/** A floor's server, with its database file (test/bench/floors.test.ts reads what it wrote). */
export interface FloorServer extends RunningServer {
  file: SqliteFile;
  agentId: string;
}

/** A floor's route, listening as the bench's other servers do; closing it closes its database. */
export async function serveFloor(app: FastifyInstance, database: FloorDatabase): Promise<FloorServer> {
  const baseUrl = await listen(app);
  return {
    baseUrl,
    server: app.server,
    file: database.file,
    agentId: database.agentId,
    close: async () => {
      await app.close();
      await database.close();
    },
  };
}
