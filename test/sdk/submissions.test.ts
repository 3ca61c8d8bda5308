import { createdTask, Handoff, HandoffError, HandoffWorker, unwrap } from '@handoff/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, newWalletAddress } from '../helpers/fixtures.js';
import { listen } from '../helpers/mcp.js';

let t: TestApp;
let baseUrl: string;
let handoff: Handoff;

beforeAll(async () => {
  t = await createTestApp();
  baseUrl = await listen(t);
  const agent = await createAgent(t, { name: 'SDK reviewer', deposit: '100' });
  handoff = new Handoff({ baseUrl, apiKey: agent.apiKey });
});
afterAll(async () => {
  await t?.close();
});

describe('SDK: submissions, revisions and approval', () => {
  it('a worker submits, the agent asks for a revision, the worker resubmits, the agent approves', async () => {
    const worker = HandoffWorker.fromBotToken({
      baseUrl,
      botToken: t.config.telegramBotToken,
      user: { id: 9_300_001, first_name: 'Sam' },
      authDate: t.clock.now(),
    });
    await worker.me();
    await worker.setWallet(newWalletAddress());
    const { task } = createdTask(
      unwrap(
        await handoff.api.POST('/tasks', {
          body: {
            title: 'Photograph the bridge',
            description: 'From the east bank',
            reward: '2',
            reviewHours: 24,
          },
        }),
      ),
    );
    const application = await worker.apply(task.id, 'On my way');
    unwrap(
      await handoff.api.PATCH('/applications/{id}', {
        params: { path: { id: application.id } },
        body: { status: 'ACCEPTED' },
      }),
    );
    const first = await worker.submit(task.id, {
      note: 'Here it is',
      location: { latitude: 50, longitude: 8 },
    });
    expect(first.task).toMatchObject({ status: 'REVIEW', reviewHours: 24 });
    expect(first.submission.location).toMatchObject({ latitude: 50, longitude: 8, withinArea: null });
    await expect(worker.submit(task.id, { note: 'Again' })).rejects.toBeInstanceOf(HandoffError);

    expect((await handoff.submissions(task.id)).map((s) => s.id)).toEqual([first.submission.id]);
    const revised = await handoff.requestRevision(task.id, 'Include the towers');
    expect(revised.task.status).toBe('IN_PROGRESS');
    expect((await worker.task(task.id)).submission?.revisionReason).toBe('Include the towers');

    const second = await worker.submit(task.id, { note: 'With the towers' });
    expect(second.submission.number).toBe(2);
    const done = unwrap(
      await handoff.api.POST('/tasks/{id}/complete', { params: { path: { id: task.id } } }),
    );
    expect(done.task.status).toBe('COMPLETED');
    expect((await worker.submissions(task.id)).map((s) => s.status)).toEqual([
      'ACCEPTED',
      'REVISION_REQUESTED',
    ]);
  });
});
