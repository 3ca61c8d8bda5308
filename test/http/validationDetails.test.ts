import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, createWorker } from '../helpers/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('a 400 names every bad field, up to 20', () => {
  it('reports each wrong field of a body, not only the first', async () => {
    const agent = await createAgent(t);
    const res = await t.app.inject({
      method: 'POST',
      url: '/tasks',
      headers: agent.headers,
      payload: { title: 1, description: 2, reward: '1', deadline: 'soon' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details.map((d: { path: string }) => d.path)).toEqual([
      'title',
      'description',
      'deadline',
    ]);
  });

  it('stops at 20 details however many items are wrong, and says how many there were', async () => {
    const worker = await createWorker(t, { wallet: false });
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/worker/me',
      headers: worker.headers,
      payload: { skills: Array.from({ length: 500 }, (_, i) => i) },
    });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.details).toHaveLength(20);
    expect(body.detailsOmitted).toBeGreaterThan(0);
  });
});
