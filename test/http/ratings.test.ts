import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, completedTask, eventsOfType, ok, unknownId } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { assignedTask, createAgent, createTask, createWorker } from '../helpers/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const NOT_COMPLETED = 'task must be completed before rating';

describe('POST /tasks/:id/rate (agent rates worker)', () => {
  it('is refused with 400 before the task is completed', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const funded = await createTask(t, agent);
    const { taskId: assigned } = await assignedTask(t, agent, worker);
    const inReview = await assignedTask(t, agent, worker);
    await ok(t, agent, 'PATCH', `/tasks/${inReview.taskId}`, { status: 'REVIEW' });
    const cancelled = await assignedTask(t, agent, worker);
    await ok(t, agent, 'POST', `/tasks/${cancelled.taskId}/refund`);

    for (const id of [funded.id, assigned, inReview.taskId, cancelled.taskId]) {
      const res = await call(t, agent, 'POST', `/tasks/${id}/rate`, { score: 5 });
      expect(res.statusCode).toBe(400);
      // The spec fixes the error text; the app adds the task's currentStatus.
      expect(res.json()).toMatchObject({ error: NOT_COMPLETED });
      expect(Object.keys(res.json()).filter((k) => k !== 'currentStatus')).toEqual(['error']);
      expect(await ok(t, agent, 'GET', `/tasks/${id}/ratings`)).toEqual({
        agentRating: null,
        workerRating: null,
      });
    }
  });

  it('rates once after completion: 201 {rating}, then 409 "Already rated this task"', async () => {
    const agent = await createAgent(t, { deposit: '20' });
    const worker = await createWorker(t);
    const { taskId } = await completedTask(t, agent, worker, { reward: '1' });
    t.clock.advance(1000);
    const createdAt = t.clock.now().toISOString();

    const res = await call(t, agent, 'POST', `/tasks/${taskId}/rate`, {
      score: 4,
      comment: 'Quick and tidy',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      rating: {
        id: expect.stringMatching(/^rat_/),
        taskId,
        raterType: 'AGENT',
        score: 4,
        comment: 'Quick and tidy',
        createdAt,
      },
    });

    const again = await call(t, agent, 'POST', `/tasks/${taskId}/rate`, { score: 1 });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'Already rated this task' });
    const ratings = await ok(t, agent, 'GET', `/tasks/${taskId}/ratings`);
    expect(ratings.agentRating).toMatchObject({ score: 4, comment: 'Quick and tidy' });
    expect((await ok(t, agent, 'GET', `/agents/workers/${worker.id}`)).worker).toMatchObject({
      avgRating: 4,
      ratingCount: 1,
    });
  });

  it('takes the comment as optional', async () => {
    const agent = await createAgent(t, { deposit: '20' });
    const { taskId } = await completedTask(t, agent, await createWorker(t), { reward: '1' });
    const body = await ok(t, agent, 'POST', `/tasks/${taskId}/rate`, { score: 3 }, 201);
    expect(body.rating).toMatchObject({ score: 3, comment: null, raterType: 'AGENT' });
  });

  it.each([
    ['score 0', { score: 0 }],
    ['score 6', { score: 6 }],
    ['score 2.5', { score: 2.5 }],
    ['score -1', { score: -1 }],
    ['no score', { comment: 'Nice' }],
    ['score as words', { score: 'five' }],
    ['a comment over 1000 characters', { score: 5, comment: 'c'.repeat(1001) }],
  ])('refuses %s with 400 and records nothing', async (_case, payload) => {
    const agent = await createAgent(t, { deposit: '20' });
    const worker = await createWorker(t);
    const { taskId } = await completedTask(t, agent, worker, { reward: '1' });
    const res = await call(t, agent, 'POST', `/tasks/${taskId}/rate`, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('Validation failed');
    expect((await ok(t, agent, 'GET', `/tasks/${taskId}/ratings`)).agentRating).toBeNull();
    expect((await ok(t, agent, 'GET', `/agents/workers/${worker.id}`)).worker.ratingCount).toBe(0);
    // A valid rating still goes through afterwards.
    await ok(t, agent, 'POST', `/tasks/${taskId}/rate`, { score: 1 }, 201);
  });

  it('accepts 1 and 5 and averages them on the worker', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    for (const score of [1, 5, 5]) {
      const { taskId } = await completedTask(t, agent, worker, { reward: '1' });
      await ok(t, agent, 'POST', `/tasks/${taskId}/rate`, { score }, 201);
    }
    const detail = (await ok(t, agent, 'GET', `/agents/workers/${worker.id}`)).worker;
    expect(detail).toMatchObject({ avgRating: 3.67, ratingCount: 3, completedTasks: 3 });
    // The catalog entry shows the same.
    const listed = await ok(t, agent, 'GET', `/agents/workers?limit=100&skills=photo`);
    const entry = listed.workers.find((w: { id: string }) => w.id === worker.id);
    expect(entry).toMatchObject({ avgRating: 3.67, ratingCount: 3 });
  });

  it('answers 404 for an unknown task', async () => {
    const agent = await createAgent(t);
    const res = await call(t, agent, 'POST', `/tasks/${unknownId('tsk')}/rate`, { score: 5 });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Task not found' });
  });
});

describe('POST /worker/tasks/:id/rate (worker rates agent)', () => {
  it('records the rating, tells the agent (rating.received) and updates the agent average', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const { taskId } = await completedTask(t, agent, worker, { reward: '1' });
    // Not rated yet: the task's own view says so (the Mini App shows the form).
    expect((await ok(t, worker, 'GET', `/worker/tasks/${taskId}`)).task.yourRating).toBeNull();

    const body = await ok(
      t,
      worker,
      'POST',
      `/worker/tasks/${taskId}/rate`,
      { score: 2, comment: 'Vague' },
      201,
    );
    expect(body.rating).toMatchObject({ taskId, raterType: 'USER', score: 2, comment: 'Vague' });
    expect(await eventsOfType(t, taskId, 'rating.received')).toEqual([
      { taskId, rating: { id: body.rating.id, raterType: 'USER', score: 2, comment: 'Vague' } },
    ]);
    expect((await ok(t, agent, 'GET', '/agents/me')).agent).toMatchObject({ avgRating: 2, ratingCount: 1 });
    // Reopened, the task shows the rating given instead of the form.
    expect((await ok(t, worker, 'GET', `/worker/tasks/${taskId}`)).task.yourRating).toEqual({
      score: 2,
      comment: 'Vague',
    });

    const again = await call(t, worker, 'POST', `/worker/tasks/${taskId}/rate`, { score: 5 });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'Already rated this task' });
    expect(await eventsOfType(t, taskId, 'rating.received')).toHaveLength(1);

    const second = await completedTask(t, agent, worker, { reward: '1' });
    await ok(t, worker, 'POST', `/worker/tasks/${second.taskId}/rate`, { score: 5 }, 201);
    expect((await ok(t, agent, 'GET', '/agents/me')).agent).toMatchObject({ avgRating: 3.5, ratingCount: 2 });
    // The agent's own rating of the worker is separate.
    expect((await ok(t, agent, 'GET', `/agents/workers/${worker.id}`)).worker.ratingCount).toBe(0);
  });

  it('is refused before completion with the same 400', async () => {
    const agent = await createAgent(t, { deposit: '20' });
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker);
    const res = await call(t, worker, 'POST', `/worker/tasks/${taskId}/rate`, { score: 5 });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: NOT_COMPLETED });
    expect(await eventsOfType(t, taskId, 'rating.received')).toEqual([]);
  });
});

describe('GET /tasks/:id/ratings', () => {
  it('shows each side, null until it has rated', async () => {
    const agent = await createAgent(t, { deposit: '20' });
    const worker = await createWorker(t);
    const { taskId } = await completedTask(t, agent, worker, { reward: '1' });
    expect(await ok(t, agent, 'GET', `/tasks/${taskId}/ratings`)).toEqual({
      agentRating: null,
      workerRating: null,
    });

    const byWorker = (await ok(t, worker, 'POST', `/worker/tasks/${taskId}/rate`, { score: 5 }, 201)).rating;
    expect(await ok(t, agent, 'GET', `/tasks/${taskId}/ratings`)).toEqual({
      agentRating: null,
      workerRating: byWorker,
    });
    expect(byWorker).toEqual({
      id: expect.stringMatching(/^rat_/),
      taskId,
      raterType: 'USER',
      score: 5,
      comment: null,
      createdAt: t.clock.now().toISOString(),
    });

    const byAgent = (await ok(t, agent, 'POST', `/tasks/${taskId}/rate`, { score: 4, comment: 'Good' }, 201))
      .rating;
    expect(await ok(t, agent, 'GET', `/tasks/${taskId}/ratings`)).toEqual({
      agentRating: byAgent,
      workerRating: byWorker,
    });
  });

  it('answers 404 for an unknown task', async () => {
    const agent = await createAgent(t);
    const res = await call(t, agent, 'GET', `/tasks/${unknownId('tsk')}/ratings`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Task not found' });
  });
});
