import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { autoReleaseTask } from '../../src/domain/tasks/completion.js';
import { runReviewWindow } from '../../src/domain/trust/reviewWindow.js';
import { DIALECT, type TestApp } from '../helpers/app.js';
import {
  assignedTask,
  createAgent,
  createWorker,
  type TestAgent,
  type TestWorker,
} from '../helpers/fixtures.js';
import {
  createUnthrottledTestApp,
  expectAgentBooks,
  expectAuditOk,
  ledgerOfTask,
  listTransactions,
  statusCounts,
} from '../helpers/moneyChecks.js';
import { submittedTask } from '../helpers/submissionApi.js';

/**
 * Issue 25's races, each with one winner and exact books, on whichever database the run uses
 * (PostgreSQL: a pool of 20 connections runs them truly in parallel).
 */
const HOUR = 3_600_000;
const ROUNDS = 6;

describe(`review races on ${DIALECT}`, () => {
  let t: TestApp;
  let agent: TestAgent;
  let worker: TestWorker;
  beforeAll(async () => {
    t = await createUnthrottledTestApp({ pgPoolSize: 20 });
    agent = await createAgent(t, { name: 'Racer', deposit: '1000' });
    worker = await createWorker(t);
  });
  afterAll(() => t.close());

  const inject = (method: 'POST' | 'DELETE', url: string, payload?: Record<string, unknown>) =>
    t.app.inject({ method, url, headers: agent.headers, ...(payload ? { payload } : {}) });
  const statusOf = async (taskId: string) =>
    (await t.ctx.db.selectFrom('tasks').select('status').where('id', '=', taskId).executeTakeFirstOrThrow())
      .status;
  const submissionsOf = (taskId: string) =>
    t.ctx.db.selectFrom('submissions').select('status').where('task_id', '=', taskId).execute();
  const noError = (id: string, error: unknown) => {
    throw new Error(`${id}: ${String(error)}`);
  };

  it('complete vs auto-release: the task is paid exactly once', async () => {
    const tasks: string[] = [];
    for (let i = 0; i < ROUNDS; i++)
      tasks.push((await submittedTask(t, agent, worker, { reviewHours: 1 })).taskId);
    t.clock.advance(HOUR);
    const results = await Promise.all(
      tasks.flatMap((id) => [
        inject('POST', `/tasks/${id}/complete`),
        autoReleaseTask(t.ctx, id).then((done) => ({ statusCode: done ? 200 : 409 })),
        runReviewWindow(t.ctx, noError).then(() => ({ statusCode: 0 })),
      ]),
    );
    expect(statusCounts(results.filter((r) => r.statusCode !== 0))[200]).toBeGreaterThanOrEqual(1);
    const rows = await listTransactions(t, agent);
    for (const id of tasks) {
      expect(await statusOf(id)).toBe('COMPLETED');
      expect(ledgerOfTask(rows, id)).toEqual({ escrow: 1, payout: 1, fee: 1, refund: 0 });
      expect(await submissionsOf(id)).toEqual([{ status: 'ACCEPTED' }]);
      const completed = await t.ctx.db
        .selectFrom('events')
        .select('id')
        .where('task_id', '=', id)
        .where('type', '=', 'task.completed')
        .execute();
      expect(completed).toHaveLength(1);
    }
    await expectAgentBooks(t, agent);
    await expectAuditOk(t);
  });

  it('refund vs submission: either the refund or the submission wins, never both', async () => {
    const outcomes = { refunded: 0, submitted: 0 };
    for (let i = 0; i < ROUNDS * 2; i++) {
      const { taskId } = await assignedTask(t, agent, worker);
      const submitting = () =>
        t.app.inject({
          method: 'POST',
          url: `/worker/tasks/${taskId}/submissions`,
          headers: worker.headers,
          payload: { note: 'Done' },
        });
      // Either goes first every other round, so on SQLite (one connection) both orders happen.
      const [refund, submission] =
        i % 2 === 0
          ? await Promise.all([inject('POST', `/tasks/${taskId}/refund`), submitting()])
          : await Promise.all([
              submitting(),
              // The worker's sign-in takes longer than the agent's cached key: a moment's head start.
              new Promise((r) => setTimeout(r, 3)).then(() => inject('POST', `/tasks/${taskId}/refund`)),
            ]).then(([s, r]) => [r, s] as const);
      const won = [refund.statusCode === 200, submission.statusCode === 201];
      expect(won.filter(Boolean), `${refund.body} ${submission.body}`).toHaveLength(1);
      expect(won[0] ? submission.statusCode : refund.statusCode, `${refund.body} ${submission.body}`).toBe(
        409,
      );
      if (refund.statusCode === 200) {
        outcomes.refunded++;
        expect(await statusOf(taskId)).toBe('CANCELLED');
        expect(await submissionsOf(taskId)).toEqual([]);
      } else {
        outcomes.submitted++;
        expect(refund.json().error).toMatch(/complete.*revision.*dispute/);
        expect(await statusOf(taskId)).toBe('REVIEW');
      }
    }
    expect(outcomes.refunded + outcomes.submitted).toBe(ROUNDS * 2);
    if (process.env.REVIEW_RACE_DEBUG) console.log(outcomes);
    await expectAgentBooks(t, agent);
  });

  it('revision vs auto-release: one wins, and the books match the winner', async () => {
    const tasks: string[] = [];
    for (let i = 0; i < ROUNDS; i++)
      tasks.push((await submittedTask(t, agent, worker, { reviewHours: 1 })).taskId);
    t.clock.advance(HOUR);
    const results = await Promise.all(
      tasks.map(async (id) => {
        const [revision, released] = await Promise.all([
          inject('POST', `/tasks/${id}/revisions`, { reason: 'Again please' }),
          autoReleaseTask(t.ctx, id),
        ]);
        return { id, revision: revision.statusCode, released: released !== null };
      }),
    );
    const rows = await listTransactions(t, agent);
    for (const r of results) {
      expect(r.revision === 201, JSON.stringify(r)).toBe(!r.released);
      const status = await statusOf(r.id);
      const submissions = await submissionsOf(r.id);
      if (r.released) {
        expect(status).toBe('COMPLETED');
        expect(submissions).toEqual([{ status: 'ACCEPTED' }]);
        expect(ledgerOfTask(rows, r.id)).toEqual({ escrow: 1, payout: 1, fee: 1, refund: 0 });
      } else {
        expect(status).toBe('IN_PROGRESS');
        expect(submissions).toEqual([{ status: 'REVISION_REQUESTED' }]);
        expect(ledgerOfTask(rows, r.id)).toEqual({ escrow: 1, payout: 0, fee: 0, refund: 0 });
      }
    }
    await expectAgentBooks(t, agent);
    await expectAuditOk(t);
  });
});
