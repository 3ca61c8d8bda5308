import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueTag, walk } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import {
  assignedTask,
  createAgent,
  createWorker,
  type TestAgent,
  type TestWorker,
} from '../helpers/fixtures.js';

describe('reputation', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const inject = (method: 'GET' | 'POST', url: string, headers: object, payload?: object) =>
    t.app.inject({ method, url, headers: headers as Record<string, string>, payload });

  /** `n` agents each with a task assigned to `worker`. */
  async function assignedTasks(worker: TestWorker, n: number) {
    const out: { agent: TestAgent; taskId: string }[] = [];
    for (let i = 0; i < n; i++) {
      const agent = await createAgent(t, { deposit: '20' });
      out.push({ agent, taskId: (await assignedTask(t, agent, worker, { reward: `${i + 1}` })).taskId });
    }
    return out;
  }

  it('completions and ratings that race keep the counts and averages exact', async () => {
    const worker = await createWorker(t);
    const tasks = await assignedTasks(worker, 6);
    const completions = await Promise.all(
      tasks.map(({ agent, taskId }) => inject('POST', `/tasks/${taskId}/complete`, agent.headers)),
    );
    expect(completions.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);

    const scores = [5, 4, 3, 5, 2, 1];
    const agentRatings = await Promise.all(
      tasks.map(({ agent, taskId }, i) =>
        inject('POST', `/tasks/${taskId}/rate`, agent.headers, { score: scores[i]! }),
      ),
    );
    const workerRatings = await Promise.all(
      tasks.map(({ taskId }, i) =>
        inject('POST', `/worker/tasks/${taskId}/rate`, worker.headers, {
          score: scores[5 - i]!,
          comment: 'ok',
        }),
      ),
    );
    expect([...agentRatings, ...workerRatings].every((r) => r.statusCode === 201)).toBe(true);

    const detail = (await inject('GET', `/agents/workers/${worker.id}`, tasks[0]!.agent.headers)).json()
      .worker;
    // 1 + 2 + ... + 6 TON earned; (5+4+3+5+2+1)/6 = 3.33.
    expect(detail).toMatchObject({ completedTasks: 6, totalEarned: '21', avgRating: 3.33, ratingCount: 6 });
    for (const [i, { agent }] of tasks.entries()) {
      const me = (await inject('GET', '/agents/me', agent.headers)).json().agent;
      expect(me).toMatchObject({ avgRating: scores[5 - i], ratingCount: 1 });
    }
  });

  it('sort=rating orders by average, then number of ratings, unrated last, across pages', async () => {
    const tag = uniqueTag('rated');
    const profile = { headline: 'Rated worker', skills: [tag] };
    const workers: Record<string, TestWorker> = {};
    for (const name of ['fiveOnce', 'fiveTwice', 'fourAndHalf', 'unrated', 'three']) {
      workers[name] = await createWorker(t, { profile, firstName: name });
    }
    const grades: Record<string, number[]> = {
      fiveOnce: [5],
      fiveTwice: [5, 5],
      fourAndHalf: [5, 4],
      three: [3],
    };
    for (const [name, list] of Object.entries(grades)) {
      for (const score of list) {
        const agent = await createAgent(t, { deposit: '5' });
        const { taskId } = await assignedTask(t, agent, workers[name]!, { reward: '1' });
        expect((await inject('POST', `/tasks/${taskId}/complete`, agent.headers)).statusCode).toBe(200);
        expect((await inject('POST', `/tasks/${taskId}/rate`, agent.headers, { score })).statusCode).toBe(
          201,
        );
      }
    }
    const viewer = await createAgent(t);
    const expected = ['fiveTwice', 'fiveOnce', 'fourAndHalf', 'three', 'unrated'];
    for (const limit of [1, 2, 5]) {
      const { items } = await walk(
        t,
        viewer,
        `/agents/workers?skills=${tag}&sort=rating&limit=${limit}`,
        'workers',
      );
      expect(items.map((w) => w.firstName)).toEqual(expected);
    }
    const first = (await inject('GET', `/agents/workers?skills=${tag}&sort=rating`, viewer.headers)).json();
    expect(first.workers[0]).toMatchObject({ avgRating: 5, ratingCount: 2 });
    expect(first.workers[4]).toMatchObject({ avgRating: null, ratingCount: 0 });
    const bad = await inject('GET', `/agents/workers?sort=stars`, viewer.headers);
    expect(bad.statusCode).toBe(400);
  });
});
