import { randomBytes } from 'node:crypto';
import { keyPairFromSeed } from '@ton/crypto';
import { WalletContractV4 } from '@ton/ton';
import { expect } from 'vitest';
import { formatAddress } from '../../src/chain/address.js';
import { type TestApp, workerAuth } from './app.js';

/** A fresh, never-deployed V4 wallet address (a real key pair, as a worker's wallet app would make). */
export function newWalletAddress(): string {
  const keys = keyPairFromSeed(randomBytes(32));
  return formatAddress(
    WalletContractV4.create({ workchain: 0, publicKey: keys.publicKey }).address,
    'sandbox',
  );
}

export interface TestAgent {
  id: string;
  apiKey: string;
  headers: { authorization: string };
}

/** An agent through the operator API, optionally topped up by a real sandbox deposit. */
export async function createAgent(
  t: TestApp,
  opts: { name?: string | null; deposit?: string } = {},
): Promise<TestAgent> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/admin/agents',
    headers: t.admin,
    payload: opts.name === null ? {} : { name: opts.name ?? 'Test agent' },
  });
  expect(res.statusCode, res.body).toBe(201);
  const { agent, apiKey } = res.json();
  if (opts.deposit) await deposit(t, agent.id, opts.deposit);
  return { id: agent.id, apiKey, headers: { authorization: `Bearer ${apiKey}` } };
}

export async function deposit(t: TestApp, agentId: string, amount: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/admin/agents/${agentId}/deposits`,
    headers: t.admin,
    payload: { amount },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().transaction;
}

let nextTelegramId = 1000;

export interface TestWorker {
  id: string;
  telegramId: number;
  headers: { authorization: string };
  wallet: string | null;
}

/** A worker signed in through the Mini App, by default with a wallet and a catalog-ready profile. */
export async function createWorker(
  t: TestApp,
  opts: { wallet?: boolean; profile?: Record<string, unknown>; firstName?: string; username?: string } = {},
): Promise<TestWorker> {
  const telegramId = nextTelegramId++;
  const headers = workerAuth(t, telegramId, opts.firstName, opts.username);
  const me = await t.app.inject({ method: 'GET', url: '/worker/me', headers });
  expect(me.statusCode, me.body).toBe(200);
  const id = me.json().worker.id as string;
  const profile = opts.profile ?? {
    headline: 'Courier in Berlin',
    skills: ['photo', 'delivery'],
    country: 'DE',
  };
  const patched = await t.app.inject({ method: 'PATCH', url: '/worker/me', headers, payload: profile });
  expect(patched.statusCode, patched.body).toBe(200);
  let wallet: string | null = null;
  if (opts.wallet !== false) {
    wallet = newWalletAddress();
    const res = await t.app.inject({
      method: 'PUT',
      url: '/worker/me/wallet',
      headers,
      payload: { address: wallet },
    });
    expect(res.statusCode, res.body).toBe(200);
  }
  return { id, telegramId, headers, wallet };
}

export async function createTask(t: TestApp, agent: TestAgent, body: Record<string, unknown> = {}) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/tasks',
    headers: agent.headers,
    payload: { title: 'Take a photo', description: 'Of the town hall', reward: '10', ...body },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().task as { id: string; status: string; totalAmount: string };
}

/** A task with `worker` assigned through apply + accept. Returns the task id and the chat id. */
export async function assignedTask(
  t: TestApp,
  agent: TestAgent,
  worker: TestWorker,
  body: Record<string, unknown> = {},
) {
  const task = await createTask(t, agent, body);
  const applied = await t.app.inject({
    method: 'POST',
    url: `/worker/tasks/${task.id}/applications`,
    headers: worker.headers,
    payload: { message: 'I can do it' },
  });
  expect(applied.statusCode, applied.body).toBe(201);
  const accepted = await t.app.inject({
    method: 'PATCH',
    url: `/applications/${applied.json().application.id}`,
    headers: agent.headers,
    payload: { status: 'ACCEPTED' },
  });
  expect(accepted.statusCode, accepted.body).toBe(200);
  return {
    taskId: task.id,
    applicationId: applied.json().application.id as string,
    chatId: accepted.json().chat.id as string,
  };
}

export async function agentMe(t: TestApp, agent: TestAgent) {
  const res = await t.app.inject({ method: 'GET', url: '/agents/me', headers: agent.headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().agent as { balance: string; lockedByTasks: string; taskCount: number };
}

/** The money audit must find nothing wrong. */
export async function expectBooksBalanced(t: TestApp) {
  const res = await t.app.inject({ method: 'GET', url: '/admin/audit', headers: t.admin });
  expect(res.statusCode).toBe(200);
  expect(res.json()).toMatchObject({ ok: true, problems: [] });
}
