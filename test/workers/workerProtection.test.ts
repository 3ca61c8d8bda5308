import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ok } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, createWorker, expectBooksBalanced, type TestWorker } from '../helpers/fixtures.js';

let t: TestApp;
let admin: { headers: Record<string, string> };
beforeAll(async () => {
  t = await createTestApp();
  admin = { headers: t.admin };
});
afterAll(() => t.close());

const task = (title: string, extra: Record<string, unknown> = {}) => ({
  title,
  description: 'Details in the chat',
  reward: '5',
  ...extra,
});
const openIds = async (worker: TestWorker) =>
  (await ok(t, worker, 'GET', '/worker/tasks?limit=100')).tasks.map((x: { id: string }) => x.id);

describe('workers protect themselves', () => {
  it('a task reported by 3 different workers is hidden and waits in the moderation queue', async () => {
    const agent = await createAgent(t, { name: 'Reported agent', deposit: '100' });
    const id = (await ok(t, agent, 'POST', '/tasks', task('Photograph the bakery storefront'), 201)).task.id;
    const [a, b, c, d] = await Promise.all([1, 2, 3, 4].map(() => createWorker(t)));
    const bad = await call(t, a!, 'POST', `/worker/tasks/${id}/report`, { reason: 'because' });
    expect(bad.statusCode).toBe(400);
    const first = await ok(t, a!, 'POST', `/worker/tasks/${id}/report`, {
      reason: 'spam',
      note: 'Looks fake',
    });
    expect(first).toMatchObject({ reportId: expect.stringMatching(/^rpt_/), counted: true, held: false });
    // The same worker again counts once.
    expect(await ok(t, a!, 'POST', `/worker/tasks/${id}/report`, { reason: 'other' })).toEqual({
      reportId: null,
      counted: false,
      held: false,
    });
    await ok(t, b!, 'POST', `/worker/tasks/${id}/report`, { reason: 'scam_or_fraud' });
    expect(await openIds(d!)).toContain(id);
    const third = await ok(t, c!, 'POST', `/worker/tasks/${id}/report`, { reason: 'illegal' });
    expect(third.held).toBe(true);
    expect(await openIds(d!)).not.toContain(id);
    expect((await call(t, d!, 'POST', `/worker/tasks/${id}/report`, { reason: 'spam' })).statusCode).toBe(
      404,
    );
    const queue = await ok(t, admin, 'GET', '/admin/moderation?limit=100');
    const item = queue.tasks.find((x: { task: { id: string } }) => x.task.id === id);
    expect(item.rule).toBe('worker-reports');
    expect((await ok(t, agent, 'GET', `/tasks/${id}`)).task.moderation).toEqual({
      status: 'PENDING',
      rule: 'worker-reports',
    });
    await ok(t, admin, 'POST', `/admin/moderation/${id}/approve`, { note: 'Harmless' });
    expect(await openIds(d!)).toContain(id);
    expect(
      (await call(t, a!, 'POST', '/worker/tasks/tsk_nothing/report', { reason: 'spam' })).statusCode,
    ).toBe(404);
  });

  it('blocking an agent: its tasks and offers no longer reach the worker, new offers are refused; unblock undoes it', async () => {
    const agent = await createAgent(t, { name: 'Blocked agent', deposit: '100' });
    const worker = await createWorker(t);
    const other = await createWorker(t);
    const open = (await ok(t, agent, 'POST', '/tasks', task('Photograph the park gate'), 201)).task.id;
    const offer = (
      await ok(
        t,
        agent,
        'POST',
        '/tasks',
        task('Photograph the park bench', { assignToUserId: worker.id }),
        201,
      )
    ).task.id;
    expect(await openIds(worker)).toContain(open);
    expect(await ok(t, worker, 'POST', `/worker/agents/${agent.id}/block`)).toEqual({
      agentId: agent.id,
      blocked: true,
    });
    // Twice is the same.
    await ok(t, worker, 'POST', `/worker/agents/${agent.id}/block`);
    expect(await openIds(worker)).not.toContain(open);
    expect(await openIds(other)).toContain(open);
    expect(
      (await ok(t, worker, 'GET', '/worker/offers')).tasks.map((x: { id: string }) => x.id),
    ).not.toContain(offer);
    const refused = await call(
      t,
      agent,
      'POST',
      '/tasks',
      task('Photograph the fountain', { assignToUserId: worker.id }),
    );
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toContain('does not take offers from your agent');
    expect((await call(t, worker, 'POST', '/worker/agents/agt_nothing/block')).statusCode).toBe(404);
    // The worker's list of blocked agents names it (the Mini App's profile unblocks from there).
    expect(await ok(t, worker, 'GET', '/worker/agents/blocked')).toEqual({
      agents: [{ agentId: agent.id, name: expect.any(String), blockedAt: expect.any(String) }],
    });
    expect(await ok(t, other, 'GET', '/worker/agents/blocked')).toEqual({ agents: [] });
    expect(await ok(t, worker, 'DELETE', `/worker/agents/${agent.id}/block`)).toEqual({
      agentId: agent.id,
      blocked: false,
    });
    expect(await ok(t, worker, 'GET', '/worker/agents/blocked')).toEqual({ agents: [] });
    expect(await openIds(worker)).toContain(open);
    expect((await ok(t, worker, 'GET', '/worker/offers')).tasks.map((x: { id: string }) => x.id)).toContain(
      offer,
    );
    await ok(t, agent, 'POST', '/tasks', task('Photograph the fountain', { assignToUserId: worker.id }), 201);
    await expectBooksBalanced(t);
  });
});
