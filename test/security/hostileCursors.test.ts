import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/agentApi.js';
import type { TestApp } from '../helpers/app.js';
import {
  assignedTask,
  createAgent,
  createWorker,
  type TestAgent,
  type TestWorker,
} from '../helpers/fixtures.js';
import type { Schema } from '../helpers/fuzz/schemaValues.js';
import { documentTargets, type Target } from '../helpers/fuzz/targets.js';
import { createUnthrottledTestApp } from '../helpers/moneyChecks.js';

const b64 = (json: string) => Buffer.from(json).toString('base64url');
const AT = '2030-01-01T00:00:00.000Z';

/**
 * Issue #35, finding 7: a decoded cursor is caller input. Cursors that decode to the right shape
 * but hold what no list encodes (U+0000, which PostgreSQL cannot take in a text parameter; numbers
 * past what the count columns hold) were 500s on PostgreSQL; they are 400s naming the cursor on
 * both databases, sent here to every list of the served document that takes a cursor.
 */
const HOSTILE_CURSORS: [string, string][] = [
  ['U+0000 in the time', b64(JSON.stringify([`${AT}\u0000`, 'tsk_x']))],
  ['U+0000 in the id', b64(JSON.stringify([AT, 'tsk_\u0000']))],
  ['a control character', b64(JSON.stringify([AT, 'tsk_\u001b']))],
  ['1e300 as a count', b64(`[1e300,"${AT}","wrk_x"]`)],
  ['1e300 in a rating cursor', b64(`[1e300,1e300,"${AT}","wrk_x"]`)],
  ['a count past 32 bits', b64(`[2147483648,"${AT}","wrk_x"]`)],
  ['a rating count past 32 bits', b64(`[5,4294967296,"${AT}","wrk_x"]`)],
  ['a negative count', b64(`[-1,"${AT}","wrk_x"]`)],
  ['a fractional count', b64(`[1.5,1.5,"${AT}","wrk_x"]`)],
];

describe('hostile cursors and rate filters', () => {
  let t: TestApp;
  let agent: TestAgent;
  let worker: TestWorker;
  let taskId: string;
  let lists: Target[];

  beforeAll(async () => {
    // Some hundred requests from one key: the rate limit is not what this test is about.
    t = await createUnthrottledTestApp();
    agent = await createAgent(t, { deposit: '100' });
    worker = await createWorker(t);
    ({ taskId } = await assignedTask(t, agent, worker));
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as Schema;
    lists = documentTargets(doc).filter(
      (target) =>
        target.method === 'GET' && target.params.some((p) => p.in === 'query' && p.name === 'cursor'),
    );
  });
  afterAll(() => t.close());

  const headersOf = (target: Target): Record<string, string> => {
    if (target.auth === 'agent') return agent.headers;
    if (target.auth === 'worker') return worker.headers;
    if (target.auth === 'admin') return t.admin;
    return {};
  };

  /** Every path parameter of these lists is a task of this agent and worker. */
  const urlOf = (target: Target, query: string) => `${target.path.replace(/\{\w+\}/g, taskId)}?${query}`;

  it('finds the lists that take a cursor', () => {
    const ids = lists.map((target) => target.id);
    for (const id of ['GET /agents/tasks', 'GET /agents/workers', 'GET /worker/chats', 'GET /admin/disputes'])
      expect(ids).toContain(id);
    // Each list answers its first page: what follows is about the cursor, not the route.
    expect(lists.length).toBeGreaterThan(10);
  });

  it('answers every hostile cursor on every list with a 400 naming the cursor', async () => {
    const failures: string[] = [];
    for (const target of lists) {
      const first = await call(t, { headers: headersOf(target) }, 'GET', urlOf(target, 'limit=1'));
      expect(first.statusCode, `${target.id}: ${first.body}`).toBe(200);
      for (const [name, cursor] of HOSTILE_CURSORS) {
        const res = await call(t, { headers: headersOf(target) }, 'GET', urlOf(target, `cursor=${cursor}`));
        const body = res.json() as { error?: unknown };
        if (res.statusCode !== 400 || typeof body.error !== 'string' || !res.body.includes('cursor'))
          failures.push(`${target.id} with ${name}: ${res.statusCode} ${res.body}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('takes the largest counts a cursor may carry in both catalog orders (64-bit products)', async () => {
    const max = 2147483647;
    // A rated worker in the catalog: its rating sum times the cursor's count passes 32 bits.
    await t.ctx.db
      .updateTable('workers')
      .set({ rating_sum: 5, rating_count: 1 })
      .where('id', '=', worker.id)
      .execute();
    for (const [sort, cursor] of [
      ['completed', b64(`[${max},"${AT}","wrk_x"]`)],
      ['rating', b64(`[${max},${max},"${AT}","wrk_x"]`)],
    ]) {
      const res = await call(t, agent, 'GET', `/agents/workers?sort=${sort}&cursor=${cursor}`);
      expect(res.statusCode, `${sort}: ${res.body}`).toBe(200);
    }
  });

  it('refuses rate filters past the highest hourly rate, naming the bound', async () => {
    for (const query of [
      'minRate=1e300',
      'maxRate=1e300',
      'minRate=18446744073709551616',
      'maxRate=9223372036854775808',
      'minRate=1000000.000000001',
      'maxRate=1000001',
    ]) {
      const res = await call(t, agent, 'GET', `/agents/workers?${query}`);
      expect(res.statusCode, `${query}: ${res.body}`).toBe(400);
      expect(res.json().error, query).toEqual(expect.any(String));
      expect(res.body, query).toContain('1000000');
    }
    for (const query of ['minRate=1000000', 'maxRate=1000000', 'minRate=0&maxRate=1000000']) {
      const res = await call(t, agent, 'GET', `/agents/workers?${query}`);
      expect(res.statusCode, `${query}: ${res.body}`).toBe(200);
    }
  });
});
