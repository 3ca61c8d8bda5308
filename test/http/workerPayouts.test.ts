import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendDueTransfers } from '../../src/domain/money/payouts.js';
import { completedTask } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, createWorker, type TestAgent } from '../helpers/fixtures.js';
import { call, walkPages } from '../helpers/workerApi.js';

let t: TestApp;
let agent: TestAgent;
beforeAll(async () => {
  t = await createTestApp();
  agent = await createAgent(t, { deposit: '500' });
});
afterAll(() => t.close());

describe('GET /worker/payouts', () => {
  it('lists the rewards paid to the worker, newest first, with the chain transaction', async () => {
    const worker = await createWorker(t);
    const other = await createWorker(t);
    const first = await completedTask(t, agent, worker, { title: 'First job', reward: '2' });
    t.clock.advance(60_000);
    const second = await completedTask(t, agent, worker, { title: 'Second job', reward: '3.5' });
    await completedTask(t, agent, other, { title: 'Not mine', reward: '1' });
    await sendDueTransfers(t.ctx);

    const res = await call(t, 'GET', '/worker/payouts', worker.headers);
    expect(res.statusCode, res.body).toBe(200);
    const { payouts } = res.json() as { payouts: Record<string, unknown>[] };
    expect(payouts.map((p) => [p.taskId, p.taskTitle, p.amount, p.toAddress])).toEqual([
      [second.taskId, 'Second job', '3.5', worker.wallet],
      [first.taskId, 'First job', '2', worker.wallet],
    ]);
    for (const p of payouts) {
      expect(p.status).toBe('confirmed');
      expect(p.txHash).toMatch(/^[0-9a-f]{64}$/);
      // The sandbox has no public explorer.
      expect(p.explorerUrl).toBeNull();
    }
  });

  it('pages with a cursor, and needs the worker’s init data', async () => {
    const worker = await createWorker(t);
    for (let i = 0; i < 3; i++) await completedTask(t, agent, worker, { reward: '1' });
    const walked = await walkPages(t, '/worker/payouts', worker.headers, 'payouts', 2);
    expect(walked).toMatchObject({ pages: 2 });
    expect(new Set(walked.items.map((p) => (p as { id: string }).id)).size).toBe(3);
    expect((await call(t, 'GET', '/worker/payouts', {})).statusCode).toBe(401);
    expect((await call(t, 'GET', '/worker/payouts?limit=0', worker.headers)).statusCode).toBe(400);
  });
});
