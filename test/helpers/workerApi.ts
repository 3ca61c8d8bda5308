import { expect } from 'vitest';
import { listTaskEvents } from '../../src/db/repositories/events.js';
import type { TestApp } from './app.js';
import type { TestAgent, TestWorker } from './fixtures.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** One request through the app; the response is returned whatever its status. */
export function call(
  t: TestApp,
  method: Method,
  url: string,
  headers: Record<string, string> = {},
  payload?: unknown,
) {
  return t.app.inject({
    method,
    url,
    headers,
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

/** The worker's own profile, as GET /worker/me returns it. */
export async function workerMe(t: TestApp, headers: Record<string, string>) {
  const res = await call(t, 'GET', '/worker/me', headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().worker as Record<string, unknown>;
}

/** A worker applies to a task; asserts 201 and returns the application. */
export async function applyTo(t: TestApp, worker: TestWorker, taskId: string, message = 'Pick me') {
  const res = await call(t, 'POST', `/worker/tasks/${taskId}/applications`, worker.headers, { message });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().application as { id: string; taskId: string; status: string; message: string };
}

/** A direct offer from `agent` to `worker`; returns the OFFERED task. */
export async function offerTo(
  t: TestApp,
  agent: TestAgent,
  worker: { id: string },
  body: Record<string, unknown> = {},
) {
  const res = await call(t, 'POST', '/tasks', agent.headers, {
    title: 'Direct job',
    description: 'Only for you',
    reward: '5',
    assignToUserId: worker.id,
    ...body,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as {
    task: { id: string; status: string; paymentStatus: string; worker: { id: string } | null };
    offeredWorker: { id: string; firstName: string };
    message: string;
  };
}

/** The task as its agent sees it (GET /tasks/:id). */
export async function agentTask(t: TestApp, agent: TestAgent, taskId: string) {
  const res = await call(t, 'GET', `/tasks/${taskId}`, agent.headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().task as Record<string, unknown> & {
    status: string;
    executionDeadline: string | null;
    applications: { id: string; status: string; user: { id: string } }[];
  };
}

/** The outbox events of a task, oldest first, with their data parsed. */
export async function taskEvents(t: TestApp, taskId: string) {
  const rows = await listTaskEvents(t.ctx.db, taskId);
  return rows.map((r) => ({
    type: r.type,
    agentId: r.agent_id,
    data: JSON.parse(r.data_json) as Record<string, unknown>,
  }));
}

/** Walks a worker list endpoint page by page and returns every item in order. */
export async function walkPages<T>(
  t: TestApp,
  url: string,
  headers: Record<string, string>,
  key: string,
  limit: number,
): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const sep = url.includes('?') ? '&' : '?';
    const query = `${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await call(t, 'GET', `${url}${query}`, headers);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body[key].length).toBeLessThanOrEqual(limit);
    expect(body.hasMore).toBe(body.nextCursor !== null);
    items.push(...body[key]);
    cursor = body.nextCursor;
    pages++;
    expect(pages).toBeLessThan(1000);
  } while (cursor);
  return { items, pages };
}
