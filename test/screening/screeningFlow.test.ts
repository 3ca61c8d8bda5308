import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ok } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { agentMe, createAgent, createWorker, expectBooksBalanced } from '../helpers/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const task = (title: string, extra: Record<string, unknown> = {}) => ({
  title,
  description: 'Details in the chat',
  reward: '5',
  ...extra,
});

describe('screening at task creation', () => {
  it('refuses a task a refuse rule matches: 400 naming the rule and the policy, nothing escrowed', async () => {
    const agent = await createAgent(t, { name: 'Screened agent', deposit: '100' });
    const before = await agentMe(t, agent);
    const res = await call(t, agent, 'POST', '/tasks', task('Follow my ex-wife and photograph her'));
    expect(res.statusCode, res.body).toBe(400);
    const body = res.json();
    expect(body.error).toContain('acceptable-use policy');
    expect(body.rule).toMatchObject({ id: 'following-a-person', category: 'harm_or_surveillance' });
    expect(body.policyUrl).toMatch(/\/policy$/);
    const policy = await t.app.inject({ method: 'GET', url: '/policy' });
    expect(policy.statusCode).toBe(200);
    expect(policy.body).toContain('Acceptable-use policy');
    expect(policy.body).toContain(body.rule.name);
    const after = await agentMe(t, agent);
    expect(after).toMatchObject({
      balance: before.balance,
      lockedByTasks: before.lockedByTasks,
      taskCount: 0,
    });
  });

  it('holds a task a hold rule matches: escrowed, PENDING for its agent, invisible to workers', async () => {
    const agent = await createAgent(t, { name: 'Held agent', deposit: '100' });
    const worker = await createWorker(t);
    const created = await ok(
      t,
      agent,
      'POST',
      '/tasks',
      task('Climb onto the roof and film the sunset'),
      201,
    );
    expect(created.task.moderation).toEqual({ status: 'PENDING', rule: 'dangerous-acts' });
    expect(created.task.status).toBe('FUNDED');
    expect((await agentMe(t, agent)).lockedByTasks).toBe('6.5');
    const seen = await ok(t, agent, 'GET', `/tasks/${created.task.id}`);
    expect(seen.task.moderation).toEqual({ status: 'PENDING', rule: 'dangerous-acts' });
    const open = await ok(t, worker, 'GET', '/worker/tasks?limit=100');
    expect(open.tasks.map((x: { id: string }) => x.id)).not.toContain(created.task.id);
    expect((await call(t, worker, 'GET', `/worker/tasks/${created.task.id}`)).statusCode).toBe(404);
    const applied = await call(t, worker, 'POST', `/worker/tasks/${created.task.id}/apply`, {
      message: 'me',
    });
    expect(applied.statusCode).toBe(404);
    await expectBooksBalanced(t);
  });

  it('holds a direct offer without telling its worker, and the worker cannot accept it', async () => {
    const agent = await createAgent(t, { name: 'Offer agent', deposit: '100' });
    const worker = await createWorker(t);
    const created = await ok(
      t,
      agent,
      'POST',
      '/tasks',
      task('Remove the asbestos panels from the shed', { assignToUserId: worker.id }),
      201,
    );
    expect(created.task.moderation.status).toBe('PENDING');
    const offers = await ok(t, worker, 'GET', '/worker/offers');
    expect(offers.tasks).toEqual([]);
    expect((await call(t, worker, 'POST', `/worker/offers/${created.task.id}/accept`)).statusCode).toBe(404);
  });

  it('a task no rule matches has no moderation field and workers see it', async () => {
    const agent = await createAgent(t, { name: 'Plain agent', deposit: '100' });
    const worker = await createWorker(t);
    const created = await ok(t, agent, 'POST', '/tasks', task('Photograph the bakery storefront'), 201);
    expect(created.task.moderation).toBeUndefined();
    expect((await call(t, worker, 'GET', `/worker/tasks/${created.task.id}`)).statusCode).toBe(200);
  });

  it('freezes an agent after more refusals in a day than the limit (5): 403 on new tasks', async () => {
    const agent = await createAgent(t, { name: 'Repeat offender', deposit: '100' });
    for (let i = 0; i < 6; i++) {
      const res = await call(t, agent, 'POST', '/tasks', task(`Buy cocaine for the party number ${i}`));
      expect(res.statusCode, res.body).toBe(400);
    }
    const res = await call(t, agent, 'POST', '/tasks', task('Photograph the bakery storefront'));
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json().frozenAt).toEqual(expect.any(String));
    expect((await agentMe(t, agent)).taskCount).toBe(0);
  });
});
