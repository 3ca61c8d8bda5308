import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ok } from '../helpers/agentApi.js';
import type { TestApp } from '../helpers/app.js';
import { agentMe, assignedTask, createAgent, createTask, createWorker } from '../helpers/fixtures.js';
import { createUnthrottledTestApp } from '../helpers/moneyChecks.js';

/** The operator's freeze of an agent (issue 38): every spend 403, open tasks untouched, workers paid. */
let t: TestApp;

beforeAll(async () => {
  t = await createUnthrottledTestApp();
});
afterAll(async () => {
  await t?.close();
});

const admin = () => ({ headers: t.admin });

describe('freezing an agent', () => {
  it('refuses every new escrow while frozen; open tasks go on, workers are paid, refunds return money', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const open = await createTask(t, agent);
    const { taskId: assigned } = await assignedTask(t, agent, worker);
    const frozen = await ok(t, admin(), 'POST', `/admin/agents/${agent.id}/freeze`, { reason: 'key leaked' });
    expect(frozen.freeze).toMatchObject({ agentId: agent.id, frozen: true, reason: 'key leaked' });

    const refused = await call(t, agent, 'POST', '/tasks', { title: 'x', description: 'y', reward: '1' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toMatch(/frozen by the operator \(key leaked\)/);
    const balanceFrozen = (await agentMe(t, agent)).balance;

    // Open tasks are untouched: the assigned one is completed and paid, the open one cancelled.
    const done = await ok(t, agent, 'POST', `/tasks/${assigned}/complete`);
    expect(done.task.status).toBe('COMPLETED');
    await ok(t, agent, 'DELETE', `/tasks/${open.id}`);
    expect((await agentMe(t, agent)).balance).toBe(String(Number(balanceFrozen) + 13));

    // Freezing again keeps the first freeze; unfreezing lets it spend again.
    const again = await ok(t, admin(), 'POST', `/admin/agents/${agent.id}/freeze`, {});
    expect(again.freeze.reason).toBe('key leaked');
    const thawed = await ok(t, admin(), 'POST', `/admin/agents/${agent.id}/unfreeze`);
    expect(thawed.freeze.frozen).toBe(false);
    expect(
      (await call(t, agent, 'POST', '/tasks', { title: 'x', description: 'y', reward: '1' })).statusCode,
    ).toBe(201);
  });

  it('an unknown agent is 404; an agent cannot freeze or unfreeze itself', async () => {
    const agent = await createAgent(t);
    expect((await call(t, admin(), 'POST', '/admin/agents/agt_nope/freeze', {})).statusCode).toBe(404);
    expect((await call(t, admin(), 'POST', '/admin/agents/agt_nope/unfreeze')).statusCode).toBe(404);
    expect((await call(t, agent, 'POST', `/admin/agents/${agent.id}/unfreeze`)).statusCode).toBe(401);
  });
});
