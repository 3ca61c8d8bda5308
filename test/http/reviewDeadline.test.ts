import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReviewWindow } from '../../src/domain/trust/reviewWindow.js';
import { createTestApp, DIALECT, type TestApp } from '../helpers/app.js';
import { dispute } from '../helpers/disputeApi.js';
import { createAgent, createWorker } from '../helpers/fixtures.js';
import { requestRevision, submittedTask } from '../helpers/submissionApi.js';
import { agentTask } from '../helpers/workerApi.js';

/**
 * Past its review deadline a submission is accepted, whether or not the review job has run yet
 * (it runs every 30 s): the agent's revision or dispute that arrives then is refused, and the
 * auto-release pays the worker.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe(`the review deadline on ${DIALECT}`, () => {
  it('refuses a revision and an agent dispute once the deadline passed; the auto-release wins', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const { taskId } = await submittedTask(t, agent, worker, { reviewHours: 1 });
    const deadline = (await agentTask(t, agent, taskId)).reviewDeadline as string;
    t.clock.set(new Date(deadline));

    for (const res of [await requestRevision(t, agent, taskId), await dispute(t, agent, taskId)]) {
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json()).toEqual({
        error: expect.stringMatching(/^The review window ended at .*can no longer be revised or disputed$/),
        currentStatus: 'REVIEW',
        reviewDeadline: deadline,
      });
    }
    await runReviewWindow(t.ctx, (id, error) => {
      throw new Error(`review window failed on ${id}: ${String(error)}`);
    });
    expect(await agentTask(t, agent, taskId)).toMatchObject({ status: 'COMPLETED', revisionCount: 0 });
  });

  it('accepts a revision a moment before the deadline', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const { taskId } = await submittedTask(t, agent, worker, { reviewHours: 1 });
    const deadline = new Date((await agentTask(t, agent, taskId)).reviewDeadline as string);
    t.clock.set(new Date(deadline.getTime() - 1));
    const res = await requestRevision(t, agent, taskId);
    expect(res.statusCode, res.body).toBe(201);
  });
});
