import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { assignedTask, createAgent, createWorker, expectBooksBalanced } from '../helpers/fixtures.js';
import { submit, submitOk, uploadFile } from '../helpers/submissionApi.js';
import { agentTask, call, taskEvents } from '../helpers/workerApi.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('POST /worker/tasks/:id/submissions', () => {
  it('moves the task to REVIEW with a review deadline, and the agent hears task.submitted', async () => {
    const agent = await createAgent(t, { name: 'Reviewer', deposit: '100' });
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker, { reviewHours: 10 });
    const photo = await uploadFile(t, worker);
    const now = t.clock.now();
    const res = await submit(t, worker, taskId, { note: 'Photo taken', attachments: [photo] });
    expect(res.statusCode, res.body).toBe(201);
    const { submission, task } = res.json();
    expect(submission).toEqual({
      id: expect.stringMatching(/^sub_/),
      number: 1,
      note: 'Photo taken',
      attachments: [{ fileUrl: photo, name: 'photo.jpg', contentType: 'image/jpeg', size: 17 }],
      location: null,
      createdAt: now.toISOString(),
      status: 'PENDING',
      revisionReason: null,
    });
    const deadline = new Date(now.getTime() + 10 * 3_600_000).toISOString();
    expect(task).toMatchObject({ id: taskId, status: 'REVIEW', reviewHours: 10, reviewDeadline: deadline });
    expect(task.submission).toEqual(submission);
    const seen = await agentTask(t, agent, taskId);
    expect(seen).toMatchObject({ status: 'REVIEW', reviewDeadline: deadline, submission });
    const events = (await taskEvents(t, taskId)).filter((e) => e.type === 'task.submitted');
    expect(events.map((e) => e.data)).toEqual([{ taskId, reviewDeadline: deadline, submission }]);
    const list = await call(t, 'GET', `/tasks/${taskId}/submissions`, agent.headers);
    expect(list.json()).toEqual({ submissions: [submission] });
    const mine = await call(t, 'GET', `/worker/tasks/${taskId}/submissions`, worker.headers);
    expect(mine.json()).toEqual({ submissions: [submission] });
    await expectBooksBalanced(t);
  });
});
