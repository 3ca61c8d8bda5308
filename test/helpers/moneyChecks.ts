import { expect } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createTestApp, type TestApp, type TestAppOptions } from './app.js';
import type { TestAgent } from './fixtures.js';

/**
 * Money checks the tests make from the outside, through the HTTP API only. They deliberately do
 * not reuse src/domain/money/money.ts or the audit: a bug there must not be able to hide itself.
 */

const NANO_PER_TON = 1_000_000_000n;

/** Far above anything a test sends in a minute. */
const UNTHROTTLED = 1_000_000;

/**
 * A test app whose per-key rate limits are out of the way: these suites send hundreds of
 * requests per key per (manual-clock) minute, and 200 simultaneous creations by one agent must
 * meet the balance check, not the 100/minute limit. It is the harness's app rebuilt over the same
 * database, chain and clock with only the limits raised; everything else is the real app.
 * (test/helpers/app.ts has no option for the limits yet.)
 */
export async function createUnthrottledTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const t = await createTestApp(options);
  const config = {
    ...t.config,
    rateLimitStandard: UNTHROTTLED,
    rateLimitChat: UNTHROTTLED,
    rateLimitUpload: UNTHROTTLED,
    // Tests that send many wrong credentials (the fuzzer) must not lock their own address out.
    authFailureLimit: UNTHROTTLED,
  };
  const app = await buildApp({ config, db: t.services.db, chain: t.services.chain, clock: t.clock });
  return {
    ...t,
    app,
    config,
    ctx: app.ctx,
    async close(closeOptions) {
      await app.close();
      await t.close(closeOptions);
    },
  };
}

/** A decimal TON string from the API ("6.5", "0.013") to nanotons, strictly. */
export function toNano(ton: string): bigint {
  const match = /^(0|[1-9]\d*)(?:\.(\d{1,9}))?$/.exec(ton);
  if (!match) throw new Error(`not a TON amount: ${JSON.stringify(ton)}`);
  return BigInt(match[1]!) * NANO_PER_TON + BigInt((match[2] ?? '').padEnd(9, '0'));
}

type ApiCurrency = 'TON' | 'USDT';
const DECIMALS: Record<ApiCurrency, number> = { TON: 9, USDT: 6 };

/** A decimal amount of `currency` to its smallest unit, strictly (at most its decimals). */
export function toUnits(amount: string, currency: ApiCurrency): bigint {
  const decimals = DECIMALS[currency];
  const match = new RegExp(`^(0|[1-9]\\d*)(?:\\.(\\d{1,${decimals}}))?$`).exec(amount);
  if (!match) throw new Error(`not a ${currency} amount: ${JSON.stringify(amount)}`);
  return BigInt(match[1]!) * 10n ** BigInt(decimals) + BigInt((match[2] ?? '').padEnd(decimals, '0'));
}

/** 30% of the reward, half-up to the nanoton, computed independently of the service. */
export function expectedFee(rewardNano: bigint): bigint {
  const scaled = rewardNano * 30n;
  return scaled / 100n + (scaled % 100n >= 50n ? 1n : 0n);
}

export interface ApiTask {
  id: string;
  status: string;
  paymentStatus: string;
  reward: string;
  platformFee: string;
  totalAmount: string;
  worker: { id: string } | null;
  /** Present when not TON (issue 29). */
  currency?: 'USDT';
}

export interface ApiTransaction {
  id: string;
  type: 'DEPOSIT' | 'TASK_ESCROW' | 'PAYOUT' | 'REFUND' | 'FEE' | 'BONUS' | 'BONUS_FEE';
  amount: string;
  status: string;
  task: { id: string } | null;
  /** Present when not TON (issue 29). */
  currency?: 'USDT';
}

/** Upper bound on pages walked, so a cursor bug ends the test instead of looping forever. */
const MAX_PAGES = 50;

/** Walks a cursor-paginated list to the end; every item must appear exactly once. */
export async function listAll<T extends { id: string }>(
  t: TestApp,
  headers: { authorization: string },
  url: string,
  key: string,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  for (let pageNo = 0; pageNo < MAX_PAGES; pageNo++) {
    const sep = url.includes('?') ? '&' : '?';
    const pageUrl: string = `${url}${sep}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await t.app.inject({ method: 'GET', url: pageUrl, headers });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { nextCursor: string | null } & Record<string, unknown>;
    items.push(...(body[key] as T[]));
    cursor = body.nextCursor;
    if (!cursor) {
      const ids = items.map((i) => i.id);
      expect(new Set(ids).size, `${url}: an item appeared twice across pages`).toBe(ids.length);
      return items;
    }
  }
  throw new Error(`${url}: more than ${MAX_PAGES} pages`);
}

export const listTransactions = (t: TestApp, agent: TestAgent) =>
  listAll<ApiTransaction>(t, agent.headers, '/transactions', 'transactions');
export const listTasks = (t: TestApp, agent: TestAgent) =>
  listAll<ApiTask>(t, agent.headers, '/agents/tasks', 'tasks');

export interface AgentMoney {
  balanceNano: bigint;
  lockedNano: bigint;
  taskCount: number;
}

/** GET /agents/me as the API returns it. */
export async function agentMe(t: TestApp, agent: TestAgent): Promise<Record<string, unknown>> {
  const res = await t.app.inject({ method: 'GET', url: '/agents/me', headers: agent.headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().agent;
}

function moneyOf(me: Record<string, unknown>): AgentMoney {
  return {
    balanceNano: toNano(me.balance as string),
    lockedNano: toNano(me.lockedByTasks as string),
    taskCount: me.taskCount as number,
  };
}

export async function agentMoney(t: TestApp, agent: TestAgent): Promise<AgentMoney> {
  return moneyOf(await agentMe(t, agent));
}

const LOCKED = new Set(['OPEN', 'FUNDED', 'OFFERED', 'ASSIGNED', 'IN_PROGRESS', 'REVIEW']);

export interface Books {
  /** GET /agents/me, untouched (a refused request must not even change updatedAt). */
  me: Record<string, unknown>;
  money: AgentMoney;
  tasks: ApiTask[];
  transactions: ApiTransaction[];
  depositedNano: bigint;
}

const sumOf = (rows: ApiTransaction[], type: ApiTransaction['type']) =>
  rows.filter((r) => r.type === type).reduce((s, r) => s + toNano(r.amount), 0n);

/**
 * Recomputes one agent's books from GET /agents/me, GET /transactions and GET /agents/tasks and
 * checks every rule of docs/decisions/tasks-and-money.md that can be seen from the outside:
 * - conservation: sum(DEPOSIT) = balance + lockedByTasks + what COMPLETED tasks spent (payout + fee);
 * - lockedByTasks = sum(totalAmount) over tasks neither COMPLETED nor CANCELLED;
 * - balance = deposits - escrows + refunds, never negative;
 * - per task: one TASK_ESCROW of totalAmount; a CANCELLED task has one REFUND of totalAmount and
 *   no PAYOUT/FEE; a COMPLETED task has one PAYOUT (reward) and one FEE (fee) and no REFUND, or,
 *   resolved by a dispute with a split, one PAYOUT (the part paid), a FEE in proportion (none
 *   when it rounds to 0) and a REFUND of the rest; any other task has neither; fee = 30%
 *   half-up and total = reward + fee.
 */
export async function expectAgentBooks(t: TestApp, agent: TestAgent): Promise<Books> {
  const books = await readBooks(t, agent);
  checkBooks(books, `agent ${agent.id}`);
  return books;
}

/** What the API shows of one agent's money: GET /agents/me, every task, every ledger row. */
export async function readBooks(t: TestApp, agent: TestAgent): Promise<Books> {
  const me = await agentMe(t, agent);
  const tasks = await listTasks(t, agent);
  const transactions = await listTransactions(t, agent);
  return { me, money: moneyOf(me), tasks, transactions, depositedNano: sumOf(transactions, 'DEPOSIT') };
}

/**
 * The checks of expectAgentBooks on books already read, for each currency on its own (issue 29):
 * that currency's balance against its own tasks and ledger rows, and every ledger row of a task
 * in the task's currency (a currency's books never take another's money).
 */
export function checkBooks(books: Books, who: string): void {
  const currencyOf = (x: { currency?: 'USDT' }): ApiCurrency => x.currency ?? 'TON';
  const taskCurrency = new Map(books.tasks.map((task) => [task.id, currencyOf(task)]));
  for (const row of books.transactions) {
    if (row.task)
      expect(currencyOf(row), `${who} ${row.type} ${row.id} in its task's currency`).toBe(
        taskCurrency.get(row.task.id),
      );
  }
  const balances = books.me.balances as Record<ApiCurrency, { balance: string; lockedByTasks: string }>;
  expect(balances.TON, `${who} balance and lockedByTasks are the TON ones`).toMatchObject({
    balance: books.me.balance,
    lockedByTasks: books.me.lockedByTasks,
  });
  for (const currency of ['TON', 'USDT'] as const) {
    const transactions = books.transactions.filter((r) => currencyOf(r) === currency);
    const money: AgentMoney = {
      balanceNano: toUnits(balances[currency].balance, currency),
      lockedNano: toUnits(balances[currency].lockedByTasks, currency),
      taskCount: books.money.taskCount,
    };
    checkCurrencyBooks(
      {
        ...books,
        money,
        tasks: books.tasks.filter((task) => currencyOf(task) === currency),
        transactions,
        depositedNano: transactions
          .filter((r) => r.type === 'DEPOSIT')
          .reduce((sum, r) => sum + toUnits(r.amount, currency), 0n),
      },
      `${who} (${currency})`,
      currency,
    );
  }
  const taskIds = new Set(books.tasks.map((task) => task.id));
  for (const row of books.transactions) {
    if (row.type === 'DEPOSIT') expect(row.task, `${who} deposit with a task`).toBeNull();
    else
      expect(taskIds.has(row.task?.id ?? ''), `${who} ${row.type} ${row.id} of an unknown task`).toBe(true);
  }
  expect(books.money.taskCount, `${who} taskCount`).toBe(books.tasks.length);
}

function checkCurrencyBooks(
  { money, tasks, transactions, depositedNano: deposited }: Books,
  who: string,
  currency: ApiCurrency,
): void {
  const toNano = (amount: string) => toUnits(amount, currency);
  const sumOf = (rows: ApiTransaction[], type: ApiTransaction['type']) =>
    rows.filter((r) => r.type === type).reduce((s, r) => s + toNano(r.amount), 0n);
  let locked = 0n;
  let completed = 0n;
  for (const task of tasks) {
    const reward = toNano(task.reward);
    const fee = toNano(task.platformFee);
    const total = toNano(task.totalAmount);
    expect(fee, `${who} task ${task.id} fee`).toBe(expectedFee(reward));
    expect(total, `${who} task ${task.id} total`).toBe(reward + fee);
    if (LOCKED.has(task.status)) locked += total;
    const rows = transactions.filter((r) => r.task?.id === task.id);
    const of = (type: ApiTransaction['type']) =>
      rows.filter((r) => r.type === type).map((r) => toNano(r.amount));
    // A COMPLETED task paid its worker the reward, or (a dispute resolved with a split) part of
    // it: the fee is then in proportion, rounded down, and the rest went back to the balance.
    const paid = task.status === 'COMPLETED' ? (of('PAYOUT')[0] ?? reward) : 0n;
    const split = expectedSplit(reward, fee, paid);
    if (task.status === 'COMPLETED') completed += paid + split.feeNano;
    const expected = {
      TASK_ESCROW: [total],
      REFUND:
        task.status === 'CANCELLED'
          ? [total]
          : task.status === 'COMPLETED' && split.agentNano > 0n
            ? [split.agentNano]
            : [],
      PAYOUT: task.status === 'COMPLETED' ? [paid] : [],
      FEE: task.status === 'COMPLETED' && split.feeNano > 0n ? [split.feeNano] : [],
    };
    const actual = {
      TASK_ESCROW: of('TASK_ESCROW'),
      REFUND: of('REFUND'),
      PAYOUT: of('PAYOUT'),
      FEE: of('FEE'),
    };
    expect(actual, `${who} ledger of ${task.status} task ${task.id}`).toEqual(expected);
    // Bonuses (issue 40): only on COMPLETED tasks, each with its 30% fee, summed in the settlement.
    const bonuses = of('BONUS');
    const bonusFees = of('BONUS_FEE');
    expect(bonusFees, `${who} bonus fees of task ${task.id}`).toEqual(
      bonuses.map((b) => expectedFee(b)).filter((f) => f > 0n),
    );
    if (bonuses.length > 0) {
      expect(task.status, `${who} bonus on a ${task.status} task`).toBe('COMPLETED');
      const shown = (task as { settlement?: { bonuses?: { count: number; amount: string; fee: string } } })
        .settlement?.bonuses;
      expect(shown?.count, `${who} bonus count of task ${task.id}`).toBe(bonuses.length);
      expect(toNano(shown?.amount ?? '0'), `${who} bonuses of task ${task.id}`).toBe(
        bonuses.reduce((x, y) => x + y, 0n),
      );
    }
    const paymentStatus =
      task.status === 'COMPLETED' ? 'RELEASED' : task.status === 'CANCELLED' ? 'REFUNDED' : 'DEPOSITED';
    expect(task.paymentStatus, `${who} paymentStatus of ${task.status} task`).toBe(paymentStatus);
  }
  expect(money.balanceNano >= 0n, `${who} balance ${money.balanceNano} is negative`).toBe(true);
  expect(money.lockedNano, `${who} lockedByTasks vs its tasks`).toBe(locked);
  const bonusNano = sumOf(transactions, 'BONUS') + sumOf(transactions, 'BONUS_FEE');
  expect(money.balanceNano, `${who} balance vs ledger (deposits - escrows + refunds - bonuses)`).toBe(
    deposited - sumOf(transactions, 'TASK_ESCROW') + sumOf(transactions, 'REFUND') - bonusNano,
  );
  expect(deposited, `${who} conservation: deposits = balance + locked + completed + bonuses`).toBe(
    money.balanceNano + money.lockedNano + completed + bonusNano,
  );
}

/**
 * A dispute resolution's split, computed independently of the service: the fee in proportion to
 * what the worker got (fee x paid / reward, rounded down), the rest of the total to the agent.
 */
export function expectedSplit(rewardNano: bigint, feeNano: bigint, paidNano: bigint) {
  const splitFee = (feeNano * paidNano) / rewardNano;
  return { feeNano: splitFee, agentNano: rewardNano + feeNano - paidNano - splitFee };
}

/** GET /admin/audit must be ok and must have looked at (at least) `minAgents` agents. */
export async function expectAuditOk(t: TestApp, minAgents = 1): Promise<void> {
  const res = await t.app.inject({ method: 'GET', url: '/admin/audit', headers: t.admin });
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json();
  expect(body, 'GET /admin/audit').toMatchObject({ ok: true, problems: [] });
  expect(body.agents).toBeGreaterThanOrEqual(minAgents);
}

/** Ledger rows of one task, by type. */
export function ledgerOfTask(transactions: ApiTransaction[], taskId: string) {
  const rows = transactions.filter((r) => r.task?.id === taskId);
  const count = (type: ApiTransaction['type']) => rows.filter((r) => r.type === type).length;
  return {
    escrow: count('TASK_ESCROW'),
    payout: count('PAYOUT'),
    fee: count('FEE'),
    refund: count('REFUND'),
  };
}

/** Counts of each status code in a batch of responses, e.g. {200: 1, 409: 14}. */
export function statusCounts(responses: { statusCode: number }[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const r of responses) counts[r.statusCode] = (counts[r.statusCode] ?? 0) + 1;
  return counts;
}

/** GET /admin/audit finds nothing wrong with these agents (others in the app are not judged). */
export async function expectAuditOkFor(t: TestApp, agentIds: string[]): Promise<void> {
  const res = await t.app.inject({ method: 'GET', url: '/admin/audit', headers: t.admin });
  expect(res.statusCode, res.body).toBe(200);
  const problems = (res.json().problems as { agentId: string; problems: string[] }[]).filter((p) =>
    agentIds.includes(p.agentId),
  );
  expect(problems, 'GET /admin/audit problems').toEqual([]);
}
