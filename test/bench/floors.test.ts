/**
 * The bench's floors (bench/floor.ts, bench/readFloor.ts) say how fast POST /tasks and
 * GET /tasks/:id could be on this schema, and docs/benchmarks.md weighs the app against them.
 * That only holds while each floor does what its route does: these tests compare them, so a
 * change to what POST /tasks writes or what either route answers fails here, in CI, rather than
 * leaving a floor that quietly measures something else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TASK_BODY } from '../../bench/fixtures.js';
import { type FloorServer, startFloor } from '../../bench/floor.js';
import { READ_FLOOR_TASK_ID, startReadFloor } from '../../bench/readFloor.js';
import { ok } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, type TestAgent } from '../helpers/fixtures.js';

let t: TestApp;
let agent: TestAgent;
beforeAll(async () => {
  t = await createTestApp();
  agent = await createAgent(t, { name: 'Bench agent', deposit: '10' });
});
afterAll(() => t.close());

/** Every table of the schema (the floors' files come from the app's migrations). */
function tablesOf(floor: FloorServer): string[] {
  const rows = floor.file
    .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name")
    .all() as { name: string }[];
  return rows.map((r) => r.name).filter((name) => !name.startsWith('kysely_'));
}

async function appRowCounts(tables: string[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of tables) {
    const row = await t.ctx.db
      .selectFrom(table as 'tasks')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .executeTakeFirstOrThrow();
    counts[table] = Number(row.n);
  }
  return counts;
}

function floorRowCounts(floor: FloorServer, tables: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const table of tables) {
    const row = floor.file.prepare(`select count(*) as n from "${table}"`).get() as { n: number | bigint };
    counts[table] = Number(row.n);
  }
  return counts;
}

function added(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.keys(after)
      .filter((table) => after[table] !== before[table])
      .map((table) => [table, after[table]! - before[table]!]),
  );
}

async function appBalance(): Promise<bigint> {
  const row = await t.ctx.db
    .selectFrom('agents')
    .select('balance_nano')
    .where('id', '=', agent.id)
    .executeTakeFirstOrThrow();
  return BigInt(row.balance_nano);
}

function floorBalance(floor: FloorServer): bigint {
  const row = floor.file.prepare('select balance_nano from agents where id = ?').get(floor.agentId) as {
    balance_nano: number | bigint;
  };
  return BigInt(row.balance_nano);
}

/** A JSON value's shape: its keys, recursively, and the type of every leaf. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v)]));
  }
  return value === null ? 'null' : typeof value;
}

async function post(baseUrl: string, body: unknown) {
  const res = await fetch(`${baseUrl}/tasks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("POST /tasks' floor (bench/floor.ts)", () => {
  let floor: FloorServer;
  beforeAll(async () => {
    floor = await startFloor();
  });
  afterAll(() => floor.close());

  it('writes the rows POST /tasks writes, table by table, and escrows the same amount', async () => {
    const tables = tablesOf(floor);
    const appBefore = await appRowCounts(tables);
    const appBalanceBefore = await appBalance();
    await ok(t, agent, 'POST', '/tasks', TASK_BODY, 201);
    const appAdded = added(appBefore, await appRowCounts(tables));
    const appBalanceAfter = await appBalance();

    const floorBefore = floorRowCounts(floor, tables);
    const floorBalanceBefore = floorBalance(floor);
    const answer = await post(floor.baseUrl, TASK_BODY);
    expect(answer.status).toBe(201);
    const floorAdded = added(floorBefore, floorRowCounts(floor, tables));

    expect(floorAdded).toEqual(appAdded);
    // api_key_spend: the calling key's spend counter (issue 38), one row per key and currency.
    expect(appAdded).toEqual({ api_key_spend: 1, events: 1, tasks: 1, transactions: 1 });
    // The reward and the 30% fee: 0.5 + 0.15 TON.
    expect(appBalanceBefore - appBalanceAfter).toBe(650_000_000n);
    expect(floorBalanceBefore - floorBalance(floor)).toBe(appBalanceBefore - appBalanceAfter);
  });

  it("answers with POST /tasks' shape", async () => {
    const app = await ok<Record<string, unknown>>(t, agent, 'POST', '/tasks', TASK_BODY, 201);
    const answer = await post(floor.baseUrl, TASK_BODY);
    expect(shape(answer.body)).toEqual(shape(app));
  });
});

describe("GET /tasks/:id's floor (bench/readFloor.ts)", () => {
  let floor: FloorServer;
  beforeAll(async () => {
    floor = await startReadFloor();
  });
  afterAll(() => floor.close());

  it("answers its task with GET /tasks/:id's shape and length", async () => {
    const created = await ok<{ task: { id: string } }>(t, agent, 'POST', '/tasks', TASK_BODY, 201);
    const res = await t.app.inject({
      method: 'GET',
      url: `/tasks/${created.task.id}`,
      headers: agent.headers,
    });
    expect(res.statusCode).toBe(200);
    const answer = await fetch(`${floor.baseUrl}/tasks/${READ_FLOOR_TASK_ID}`);
    expect(answer.status).toBe(200);
    const text = await answer.text();
    expect(shape(JSON.parse(text))).toEqual(shape(res.json()));
    // The values differ (ids, times, the agent's name) but not their lengths: 'Floor agent' and
    // 'Bench agent' are both 11 characters.
    expect(text.length).toBe(res.body.length);
  });

  it('refuses a task it does not hold', async () => {
    const answer = await fetch(`${floor.baseUrl}/tasks/tsk_unknown`);
    expect(answer.status).toBe(404);
  });
});
