import { randomBytes } from 'node:crypto';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { listTaskEvents } from '../../src/db/repositories/events.js';
import type { TestApp } from './app.js';
import { assignedTask, type TestAgent, type TestWorker } from './fixtures.js';

/** Small helpers for the agent API tests; they build on fixtures.ts and never replace it. */

type Method = NonNullable<InjectOptions['method']>;
/** Parsed JSON bodies: tests read them field by field and assert the values. */
// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by assertions, not types
export type Json = any;

/** One request as `agent` (or with explicit headers). */
export function call(
  t: TestApp,
  who: TestAgent | TestWorker | { headers: Record<string, string> },
  method: Method,
  url: string,
  payload?: unknown,
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method,
    url,
    headers: who.headers,
    ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }),
  });
}

/** A request that must answer `status`; returns the parsed body. */
export async function ok<T = Record<string, Json>>(
  t: TestApp,
  who: TestAgent | TestWorker | { headers: Record<string, string> },
  method: Method,
  url: string,
  payload?: unknown,
  status = 200,
): Promise<T> {
  const res = await call(t, who, method, url, payload);
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(status);
  return res.json() as T;
}

/** A short random tag: keeps tests that share one app (and one catalog) apart. */
export function uniqueTag(prefix = 'tag'): string {
  return `${prefix}${randomBytes(4).toString('hex')}`;
}

/** A worker applies to a task; returns the application id. */
export async function apply(t: TestApp, worker: TestWorker, taskId: string, message = 'I can do it') {
  const body = await ok(t, worker, 'POST', `/worker/tasks/${taskId}/applications`, { message }, 201);
  return body.application.id as string;
}

/** Accepts an application as the agent; returns the response body. */
export function accept(t: TestApp, agent: TestAgent, applicationId: string) {
  return ok(t, agent, 'PATCH', `/applications/${applicationId}`, { status: 'ACCEPTED' });
}

/** A task assigned to `worker` and then completed by `agent`; returns the completion body. */
export async function completedTask(
  t: TestApp,
  agent: TestAgent,
  worker: TestWorker,
  body: Record<string, unknown> = {},
) {
  const { taskId, applicationId, chatId } = await assignedTask(t, agent, worker, body);
  const done = await ok(t, agent, 'POST', `/tasks/${taskId}/complete`);
  return { taskId, applicationId, chatId, done };
}

/**
 * Follows `nextCursor` from `url` until it is null; returns every item, the pages and checks
 * that each page's hasMore (when the list has one) agrees with its nextCursor.
 */
export async function walk<T = Record<string, Json>>(
  t: TestApp,
  who: TestAgent | { headers: Record<string, string> },
  url: string,
  key: string,
  maxPages = 100,
): Promise<{ items: T[]; pages: Record<string, Json>[] }> {
  const items: T[] = [];
  const pages: Record<string, Json>[] = [];
  let cursor: string | null = null;
  do {
    const sep = url.includes('?') ? '&' : '?';
    const page: Record<string, Json> = await ok(
      t,
      who,
      'GET',
      cursor ? `${url}${sep}cursor=${encodeURIComponent(cursor)}` : url,
    );
    pages.push(page);
    items.push(...(page[key] as T[]));
    if ('hasMore' in page) expect(page.hasMore).toBe(page.nextCursor !== null);
    cursor = page.nextCursor as string | null;
    expect(pages.length, 'pagination did not end').toBeLessThanOrEqual(maxPages);
  } while (cursor !== null);
  return { items, pages };
}

export interface OutboxEvent {
  type: string;
  agentId: string;
  data: Record<string, Json>;
}

/** The outbox rows of a task, parsed, in id order. */
export async function taskEvents(t: TestApp, taskId: string): Promise<OutboxEvent[]> {
  const rows = await listTaskEvents(t.ctx.db, taskId);
  return rows.map((r) => ({ type: r.type, agentId: r.agent_id, data: JSON.parse(r.data_json) }));
}

/** The data of every outbox event of one type for a task. */
export async function eventsOfType(t: TestApp, taskId: string, type: string) {
  return (await taskEvents(t, taskId)).filter((e) => e.type === type).map((e) => e.data);
}

/** The agent's ledger, newest first (one page of up to 100). */
export async function ledger(t: TestApp, agent: TestAgent, type?: string) {
  const body = await ok(t, agent, 'GET', `/transactions?limit=100${type ? `&type=${type}` : ''}`);
  return body.transactions as {
    id: string;
    type: string;
    amount: string;
    fromAddress: string | null;
    toAddress: string | null;
    txHash: string | null;
    status: string;
    createdAt: string;
    task: { id: string; title: string } | null;
  }[];
}

/** The task as its owner sees it. */
export async function getTask(t: TestApp, agent: TestAgent, taskId: string) {
  return (await ok(t, agent, 'GET', `/tasks/${taskId}`)).task as Record<string, Json>;
}

/** A syntactically valid id of `prefix` that no row has. */
export function unknownId(prefix: string): string {
  // Hex digits are all in the ids' Crockford alphabet: 10 time characters + 16 random ones.
  return `${prefix}_${'0'.repeat(10)}${randomBytes(8).toString('hex')}`;
}

export const DAY_MS = 86_400_000;
