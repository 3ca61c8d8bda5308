import { expect } from 'vitest';
import type { TestApp } from './app.js';
import type { TestAgent, TestWorker } from './fixtures.js';
import { submittedTask } from './submissionApi.js';
import { call } from './workerApi.js';

export interface DisputeBody {
  id: string;
  status: 'OPEN' | 'RESOLVED';
  openedBy: 'AGENT' | 'WORKER';
  reason: string;
  statements: { by: string; text: string; attachments: unknown[]; createdAt: string }[];
  resolution: {
    workerAmount: string;
    platformFee: string;
    agentAmount: string;
    note: string;
    resolvedAt: string;
    currency: 'TON' | 'USDT';
  } | null;
}

const side = (party: TestAgent | TestWorker) => ('apiKey' in party ? '/tasks' : '/worker/tasks');

/** POST .../dispute by the agent or the worker, whatever the answer. */
export function dispute(
  t: TestApp,
  party: TestAgent | TestWorker,
  taskId: string,
  reason = 'Not what I asked for',
) {
  return call(t, 'POST', `${side(party)}/${taskId}/dispute`, party.headers, { reason });
}

export async function disputeOk(t: TestApp, party: TestAgent | TestWorker, taskId: string, reason?: string) {
  const res = await dispute(t, party, taskId, reason);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().dispute as DisputeBody;
}

/** POST .../dispute/statements, whatever the answer. */
export function statement(
  t: TestApp,
  party: TestAgent | TestWorker,
  taskId: string,
  body: Record<string, unknown> = { text: 'Here is my side' },
) {
  return call(t, 'POST', `${side(party)}/${taskId}/dispute/statements`, party.headers, body);
}

/** POST /admin/disputes/:id/resolve, whatever the answer. */
export function resolve(
  t: TestApp,
  disputeId: string,
  workerAmount: string | number,
  note = 'Decided on the evidence',
) {
  return call(t, 'POST', `/admin/disputes/${disputeId}/resolve`, t.admin, { workerAmount, note });
}

/** A task with a waiting submission that the agent disputed. */
export async function disputedTask(
  t: TestApp,
  agent: TestAgent,
  worker: TestWorker,
  body: Record<string, unknown> = {},
) {
  const { taskId, submission } = await submittedTask(t, agent, worker, body);
  const opened = await disputeOk(t, agent, taskId);
  return { taskId, submission, dispute: opened };
}
