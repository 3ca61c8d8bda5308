import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { signInitData } from '../../src/telegram/initData.js';
import type { Json } from './agentApi.js';
import type { TestApp } from './app.js';
import { newWalletAddress, type TestAgent, type TestWorker } from './fixtures.js';

/**
 * A running service reached over real HTTP: the in-process test app listening on a port, or the
 * production build (`node dist/main.js`) as a child process. End-to-end client tests (MCP, the
 * SDK example) take one, so the same test runs against both.
 */
export interface Service {
  url: string;
  admin: { authorization: string };
  /** `Authorization: tma ...` for a Telegram user, signed with the service's bot token at its time. */
  workerAuth(telegramId: number, firstName?: string): { authorization: string };
  /** An address's balance on the service's chain, where the test can see the chain (in process). */
  chainBalance?: (address: string) => Promise<bigint>;
}

/** The in-process app `t`, listening at `url`. */
export function serviceOf(t: TestApp, url: string): Service {
  return {
    url,
    admin: t.admin,
    workerAuth: (telegramId, firstName = `Worker${telegramId}`) => ({
      authorization: `tma ${signInitData({ id: telegramId, first_name: firstName }, t.config.telegramBotToken, t.clock.now())}`,
    }),
    chainBalance: (address) => t.ctx.chain.getBalance(address),
  };
}

/** A service process at `url` whose secrets were generated into `dataDir`, on the wall clock. */
export function serviceAt(url: string, dataDir: string): Service {
  const secret = (name: string) => readFileSync(path.join(dataDir, 'secrets', name), 'utf8').trim();
  const botToken = secret('TELEGRAM_BOT_TOKEN');
  return {
    url,
    admin: { authorization: `Bearer ${secret('ADMIN_TOKEN')}` },
    workerAuth: (telegramId, firstName = `Worker${telegramId}`) => ({
      authorization: `tma ${signInitData({ id: telegramId, first_name: firstName }, botToken, new Date())}`,
    }),
  };
}

export interface Reply {
  status: number;
  headers: Headers;
  json: Json;
}

/** One request as `who` over HTTP. */
export async function send(
  service: Service,
  who: { headers: Record<string, string> },
  method: string,
  url: string,
  body?: unknown,
): Promise<Reply> {
  const res = await fetch(`${service.url}${url}`, {
    method,
    headers: { ...who.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : null };
}

/** A request that must answer `status`; returns the parsed body. */
export async function expectStatus(
  service: Service,
  who: { headers: Record<string, string> },
  method: string,
  url: string,
  body?: unknown,
  status = 200,
): Promise<Json> {
  const reply = await send(service, who, method, url, body);
  expect(reply.status, `${method} ${url}: ${JSON.stringify(reply.json)}`).toBe(status);
  return reply.json;
}

/** An agent made through the operator API, topped up by a real sandbox deposit when asked. */
export async function newAgent(
  service: Service,
  opts: { name?: string | null; deposit?: string } = {},
): Promise<TestAgent> {
  const admin = { headers: service.admin };
  const body = opts.name === null ? {} : { name: opts.name ?? 'Test agent' };
  const { agent, apiKey } = await expectStatus(service, admin, 'POST', '/admin/agents', body, 201);
  if (opts.deposit) {
    await expectStatus(
      service,
      admin,
      'POST',
      `/admin/agents/${agent.id}/deposits`,
      { amount: opts.deposit },
      201,
    );
  }
  return { id: agent.id, apiKey, headers: { authorization: `Bearer ${apiKey}` } };
}

/** Telegram ids far from the README's (42) and the in-process fixtures' (from 1000). */
let nextTelegramId = 700_000 + Math.floor(Math.random() * 100_000);

/** A worker signed in through the Mini App, with a profile and a fresh wallet address. */
export async function newWorker(service: Service): Promise<TestWorker> {
  const telegramId = nextTelegramId++;
  const headers = service.workerAuth(telegramId);
  const who = { headers };
  const { worker } = await expectStatus(service, who, 'GET', '/worker/me');
  const profile = { headline: 'Courier in Berlin', skills: ['photo', 'delivery'], country: 'DE' };
  await expectStatus(service, who, 'PATCH', '/worker/me', profile);
  const wallet = newWalletAddress();
  await expectStatus(service, who, 'PUT', '/worker/me/wallet', { address: wallet });
  return { id: worker.id, telegramId, headers, wallet };
}

/** The operator's money audit finds nothing wrong. */
export async function expectAudited(service: Service): Promise<void> {
  expect(await expectStatus(service, { headers: service.admin }, 'GET', '/admin/audit')).toMatchObject({
    ok: true,
    problems: [],
  });
}
