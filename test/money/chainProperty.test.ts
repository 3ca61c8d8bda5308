import { Address, toNano as tonToNano } from '@ton/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTextComment } from '../../src/chain/sandboxTx.js';
import { expireOverdueTasks } from '../../src/domain/tasks/expiry.js';
import { DIALECT, type TestApp, workerAuth } from '../helpers/app.js';
import type { FakeToncenter } from '../helpers/fakeToncenter.js';
import { startFakeToncenter } from '../helpers/fakeToncenter.js';
import { createAgent, type TestAgent, type TestWorker } from '../helpers/fixtures.js';
import { chainRound, createLiveWorker, type LiveTestApp, roundsUntil } from '../helpers/liveChain.js';
import { checkBooks, createUnthrottledTestApp, expectAuditOkFor, readBooks } from '../helpers/moneyChecks.js';

/**
 * Random batches of money operations, each batch sent CONCURRENTLY (Promise.all over real HTTP
 * requests to one app), by several agents and workers, on TON_NETWORK=testnet against the
 * toncenter fake over @ton/sandbox: deposits are real wallet transfers with the agent's memo,
 * payouts and fees go out in the hot wallet's batches. Operations: deposit, create (open task,
 * direct offer), apply, accept an application, accept and decline an offer, start and submit the
 * work, reject submitted work, cancel, refund, complete (payout on chain) and expiry.
 *
 * After every batch, before the chain catches up: every agent's books conserve money
 * (test/helpers/moneyChecks.ts) and the audit finds nothing. Then the background work is driven
 * until every payout is confirmed and every deposit credited, and the chain must agree with the
 * ledger:
 * - GET /admin/reconciliation is ok over every confirmed chain row (deposits by their
 *   transaction hash and amount, payouts and fees by their out-message hash, amount, address;
 *   nothing sent twice, nothing of ours unrecorded);
 * - read independently from the chain's own transactions: the hot wallet's outflow equals the
 *   confirmed PAYOUT + FEE rows, one out-message per row; each worker wallet received exactly
 *   its confirmed payouts (= GET /worker/me totalEarned); each agent's memo brought exactly the
 *   DEPOSIT rows the ledger credits.
 *
 * Seeded (FC_SEED overrides it, FC_RUNS the number of runs, FC_SHRINK=1 shrinks a failure). A request may be refused (concurrent
 * operations race for the same task) but never with 5xx or 400.
 */

const NUM_RUNS = Number(process.env.FC_RUNS ?? 10);
const SEED = Number(process.env.FC_SEED ?? 20261123);
const MIN_BATCHES = 5;
const MAX_BATCHES = 8;
const MAX_BATCH = 6;
const AGENTS = 3;
const WORKERS = 3;
/** Agents 0 and 1 start with 30 TON on chain, agent 2 with 3 (it runs short soon: 402s). */
const START_DEPOSIT = [30n, 30n, 3n].map((ton) => ton * 1_000_000_000n);
const REWARDS = ['0.5', '1', '2.5', '4'];
const DEPOSITS = [1n, 3n, 8n].map((ton) => ton * 1_000_000_000n);
/** A refused request is one of these; anything else (5xx, 400) fails the run. */
const REFUSALS = [402, 403, 404, 409];

type TaskOp =
  | 'apply'
  | 'acceptOffer'
  | 'declineOffer'
  | 'start'
  | 'submit'
  | 'reject'
  | 'complete'
  | 'refund'
  | 'cancel';
type Op =
  | { kind: 'deposit'; agent: number; amount: bigint }
  | { kind: 'create'; agent: number; reward: string; offerTo: number | null }
  | { kind: 'acceptApplication'; application: number }
  | { kind: TaskOp; task: number; worker: number }
  | { kind: 'expire' };

interface RunTask {
  id: string;
  agent: number;
  /** The worker it was offered to or assigned to, as far as answers told (a hint for callers). */
  worker: number | null;
  /** The status the books showed after the last batch (a hint to aim operations at). */
  status: string;
}

interface Run {
  agents: TestAgent[];
  workers: (TestWorker & { wallet: string })[];
  tasks: RunTask[];
  applications: { id: string; task: RunTask; worker: number }[];
  /** Nanotons sent on chain to the deposit address with each agent's memo. */
  sent: bigint[];
  log: string[];
}

const successes: Record<string, number> = {};

describe(`concurrent money operations keep conservation and the chain in agreement on ${DIALECT}`, () => {
  let l: LiveTestApp;
  let t: TestApp;
  let fake: FakeToncenter;
  beforeAll(async () => {
    fake = await startFakeToncenter({ blockMs: 10 });
    const mnemonic = (await import('@ton/crypto')).mnemonicNew();
    const feeKeys = (await import('@ton/crypto')).keyPairFromSeed(Buffer.alloc(32, 7));
    const { WalletContractV4 } = await import('@ton/ton');
    const feeAddress = WalletContractV4.create({ workchain: 0, publicKey: feeKeys.publicKey }).address;
    t = await createUnthrottledTestApp({
      live: {
        apiUrl: fake.url,
        mnemonic: await mnemonic,
        feeAddress: feeAddress.toString(),
        nowSeconds: fake.nowSeconds,
      },
    });
    const live = t.services.chain.live!;
    await fake.sendFromFaucet(live.wallet.address, tonToNano(100_000), 'funding');
    l = { t, fake, live, mnemonic: [], feeAddress, close: async () => undefined };
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  const hot = () => l.live.wallet.address;
  const workerHeaders = (r: Run, w: number) => workerAuth(t, r.workers[w]!.telegramId);

  async function send(r: Run, op: Op): Promise<void> {
    if (op.kind === 'expire') {
      // The batch moved the clock past every execution deadline before it began (see `runBatch`):
      // assigned tasks go back to FUNDED, money stays locked.
      const expired = await expireOverdueTasks(t.ctx);
      r.log.push(`expire -> ${expired}`);
      successes.expire = (successes.expire ?? 0) + expired;
      return;
    }
    if (op.kind === 'deposit') {
      await fake.sendFromFaucet(
        Address.parse(t.services.chain.depositAddress),
        op.amount,
        r.agents[op.agent]!.id,
      );
      r.sent[op.agent]! += op.amount;
      r.log.push(`deposit(agent ${op.agent}, ${op.amount})`);
      successes.deposit = (successes.deposit ?? 0) + 1;
      return;
    }
    const request = requestOf(r, op);
    if (!request) return;
    const res = await t.app.inject(request);
    r.log.push(`${describeOp(op)} -> ${res.statusCode}`);
    const context = `${describeOp(op)}: ${res.body}\n${r.log.join('\n')}`;
    if (res.statusCode >= 300) {
      expect(REFUSALS, context).toContain(res.statusCode);
      expect(res.json().error, context).toEqual(expect.any(String));
      return;
    }
    expect([200, 201], context).toContain(res.statusCode);
    successes[op.kind] = (successes[op.kind] ?? 0) + 1;
    const body = res.json();
    if (op.kind === 'create') {
      r.tasks.push({ id: body.task.id, agent: op.agent, worker: op.offerTo, status: body.task.status });
    } else if (op.kind === 'apply') {
      const task = r.tasks.find((k) => k.id === request.url.split('/')[3])!;
      r.applications.push({ id: body.application.id, task, worker: op.worker });
    } else if (op.kind === 'acceptApplication') {
      const application = pickApplication(r, op.application);
      application.task.worker = application.worker;
    } else if (op.kind === 'declineOffer') {
      pickTask(r, op).worker = null;
    }
  }

  function requestOf(r: Run, op: Exclude<Op, { kind: 'expire' | 'deposit' }>) {
    if (op.kind === 'create') {
      const agent = r.agents[op.agent]!;
      return {
        method: 'POST' as const,
        url: '/tasks',
        headers: agent.headers,
        payload: {
          title: 'Concurrent task',
          description: 'From the chain property test',
          reward: op.reward,
          agentName: `Agent ${op.agent}`,
          executionDeadlineDays: 1,
          ...(op.offerTo === null ? {} : { assignToUserId: r.workers[op.offerTo]!.id }),
        },
      };
    }
    if (op.kind === 'acceptApplication') {
      if (r.applications.length === 0) return null;
      const application = pickApplication(r, op.application);
      return {
        method: 'PATCH' as const,
        url: `/applications/${application.id}`,
        headers: r.agents[application.task.agent]!.headers,
        payload: { status: 'ACCEPTED' },
      };
    }
    if (r.tasks.length === 0) return null;
    const task = pickTask(r, op);
    const owner = r.agents[task.agent]!.headers;
    // Worker operations come from the task's worker when known, else from the drawn worker.
    const asWorker = workerHeaders(r, op.kind === 'apply' ? op.worker : (task.worker ?? op.worker));
    switch (op.kind) {
      case 'apply':
        return {
          method: 'POST' as const,
          url: `/worker/tasks/${task.id}/applications`,
          headers: asWorker,
          payload: { message: 'I can do it' },
        };
      case 'acceptOffer':
      case 'declineOffer':
        return {
          method: 'POST' as const,
          url: `/worker/offers/${task.id}/${op.kind === 'acceptOffer' ? 'accept' : 'decline'}`,
          headers: asWorker,
        };
      case 'start':
      case 'submit':
        return {
          method: 'PATCH' as const,
          url: `/worker/tasks/${task.id}`,
          headers: asWorker,
          payload: { status: op.kind === 'start' ? 'IN_PROGRESS' : 'REVIEW' },
        };
      case 'reject':
        return {
          method: 'PATCH' as const,
          url: `/tasks/${task.id}`,
          headers: owner,
          payload: { status: 'IN_PROGRESS' },
        };
      case 'complete':
        return { method: 'POST' as const, url: `/tasks/${task.id}/complete`, headers: owner };
      case 'refund':
        return {
          method: 'POST' as const,
          url: `/tasks/${task.id}/refund`,
          headers: owner,
          payload: { reason: 'property' },
        };
      case 'cancel':
        return { method: 'DELETE' as const, url: `/tasks/${task.id}`, headers: owner };
    }
  }

  /** Conservation and the ledger rules for every agent of the run, plus the audit. */
  async function checkConservation(r: Run, when: string): Promise<void> {
    for (let a = 0; a < AGENTS; a++) {
      const books = await readBooks(t, r.agents[a]!);
      checkBooks(books, `${when}: agent ${a}\n${r.log.join('\n')}`);
      for (const seen of books.tasks) {
        const task = r.tasks.find((k) => k.id === seen.id);
        expect(task, `${when}: agent ${a} has a task no request created`).toBeDefined();
        task!.status = seen.status;
        const worker = r.workers.findIndex((w) => w.id === seen.worker?.id);
        task!.worker = worker >= 0 ? worker : task!.worker;
      }
      // Every creation answered 201 is in the books.
      expect(books.tasks.length, `${when}: agent ${a} tasks`).toBe(
        r.tasks.filter((k) => k.agent === a).length,
      );
    }
    await expectAuditOkFor(
      t,
      r.agents.map((agent) => agent.id),
    );
  }

  /** Drives the chain loops until every payout and fee is confirmed and every deposit credited. */
  async function settle(r: Run): Promise<void> {
    await roundsUntil(
      l,
      async () => {
        const pending = await t.ctx.db
          .selectFrom('transactions')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('type', 'in', ['PAYOUT', 'FEE'])
          .where('status', '!=', 'confirmed')
          .executeTakeFirstOrThrow();
        if (Number(pending.n) > 0) return false;
        const credited = await depositedPerAgent(r);
        // At least what was sent: whether it is exactly that is for checkChain to say.
        return credited.every((nano, a) => nano >= r.sent[a]!);
      },
      80,
    );
  }

  async function depositedPerAgent(r: Run): Promise<bigint[]> {
    const rows = await t.ctx.db
      .selectFrom('transactions')
      .select(['agent_id', 'amount_nano'])
      .where('type', '=', 'DEPOSIT')
      .where(
        'agent_id',
        'in',
        r.agents.map((a) => a.id),
      )
      .execute();
    return r.agents.map((agent) =>
      rows.filter((row) => row.agent_id === agent.id).reduce((s, row) => s + BigInt(row.amount_nano), 0n),
    );
  }

  /** The chain, read from its own transactions, agrees with the ledger. */
  async function checkChain(r: Run): Promise<void> {
    const context = r.log.join('\n');
    const reconciliation = await t.app.inject({
      method: 'GET',
      url: '/admin/reconciliation',
      headers: t.admin,
    });
    expect(reconciliation.statusCode, reconciliation.body).toBe(200);
    const report = reconciliation.json();
    expect(report.differences, context).toEqual([]);
    expect(report.ok).toBe(true);

    const rows = await t.ctx.db
      .selectFrom('transactions')
      .select(['id', 'type', 'amount_nano', 'status', 'tx_hash', 'to_address', 'agent_id'])
      .where('type', 'in', ['DEPOSIT', 'PAYOUT', 'FEE'])
      .execute();
    expect(report.checkedRows, 'reconciliation looked at every chain row').toBe(rows.length);
    const paid = rows.filter((row) => row.type !== 'DEPOSIT');
    for (const row of paid) expect(row.status, `${row.type} ${row.id}`).toBe('confirmed');

    // The hot wallet's outflow: every out-message it sent to someone else, from its own history.
    const outs: { to: Address; nano: bigint; comment: string }[] = [];
    const incoming: { nano: bigint; comment: string }[] = [];
    for (const tx of fake.history(hot())) {
      const inMsg = tx.inMessage;
      if (inMsg?.info.type === 'internal' && !inMsg.info.src.equals(hot()))
        incoming.push({ nano: inMsg.info.value.coins, comment: readTextComment(inMsg.body) });
      for (const out of tx.outMessages.values()) {
        if (out.info.type === 'internal' && !out.info.dest.equals(hot()))
          outs.push({ to: out.info.dest, nano: out.info.value.coins, comment: readTextComment(out.body) });
      }
    }
    const sum = (xs: { nano: bigint }[]) => xs.reduce((s, x) => s + x.nano, 0n);
    const ledgerPaid = paid.reduce((s, row) => s + BigInt(row.amount_nano), 0n);
    expect(sum(outs), `hot wallet outflow vs confirmed PAYOUT + FEE\n${context}`).toBe(ledgerPaid);
    expect(outs.length, 'one out-message per confirmed PAYOUT or FEE row').toBe(paid.length);
    const comments = outs.map((o) => o.comment);
    expect(new Set(comments).size, 'no transfer sent twice').toBe(comments.length);

    // Each worker's wallet received exactly its confirmed payouts, and the API says so.
    for (let w = 0; w < WORKERS; w++) {
      const wallet = Address.parse(r.workers[w]!.wallet);
      const ledger = paid
        .filter(
          (row) => row.type === 'PAYOUT' && row.to_address && Address.parse(row.to_address).equals(wallet),
        )
        .reduce((s, row) => s + BigInt(row.amount_nano), 0n);
      const received = sum(outs.filter((o) => o.to.equals(wallet)));
      expect(received, `worker ${w} received on chain\n${context}`).toBe(ledger);
      const me = await t.app.inject({ method: 'GET', url: '/worker/me', headers: workerHeaders(r, w) });
      expect(tonToNano(me.json().worker.totalEarned), `worker ${w} totalEarned`).toBe(ledger);
    }

    // Deposits: what reached the deposit address with each agent's memo is what the ledger credits.
    const credited = await depositedPerAgent(r);
    for (let a = 0; a < AGENTS; a++) {
      const onChain = sum(incoming.filter((i) => i.comment === r.agents[a]!.id));
      expect(onChain, `agent ${a}: deposits on chain`).toBe(r.sent[a]);
      expect(credited[a], `agent ${a}: deposits credited vs chain\n${context}`).toBe(onChain);
    }
  }

  async function setup(): Promise<Run> {
    const agents: TestAgent[] = [];
    for (let a = 0; a < AGENTS; a++) agents.push(await createAgent(t, { name: `Agent ${a}` }));
    const workers: Run['workers'] = [];
    for (let w = 0; w < WORKERS; w++) workers.push(await createLiveWorker(t));
    const r: Run = { agents, workers, tasks: [], applications: [], sent: agents.map(() => 0n), log: [] };
    await Promise.all(
      START_DEPOSIT.map((amount, agent) =>
        amount > 0n ? send(r, { kind: 'deposit', agent, amount }) : Promise.resolve(),
      ),
    );
    await settle(r);
    return r;
  }

  it(
    'after every concurrent batch: books conserved, audit clean, chain and ledger agree',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.array(op, { minLength: 2, maxLength: MAX_BATCH }), {
            minLength: MIN_BATCHES,
            maxLength: MAX_BATCHES,
          }),
          async (batches) => {
            const r = await setup();
            for (const [i, batch] of batches.entries()) {
              r.log.push(`-- batch ${i + 1}`);
              // An expiry moves the clock first (past the 1-day deadlines), so no request of the batch
              // carries Telegram init data signed before the jump (it would be over 24 hours old).
              if (batch.some((o) => o.kind === 'expire')) t.clock.advance(25 * 3600_000);
              await Promise.all(batch.map((o) => send(r, o)));
              await checkConservation(r, `after batch ${i + 1}`);
              await settle(r);
              await checkConservation(r, `after batch ${i + 1} settled`);
              await checkChain(r);
            }
            // A few more rounds send nothing more: nothing is ever paid twice.
            await chainRound(l);
            await chainRound(l);
            await checkChain(r);
            if (process.env.FC_DEBUG) console.log(r.log.join('\n'));
          },
        ),
        {
          numRuns: NUM_RUNS,
          seed: SEED,
          // Each run drives a chain, so shrinking takes minutes: a failure is reported as drawn
          // (with its seed and path) unless FC_SHRINK=1 asks for the smallest case.
          endOnFailure: !process.env.FC_SHRINK,
          ...(process.env.FC_PATH ? { path: process.env.FC_PATH } : {}),
        },
      );
      if (process.env.FC_DEBUG) console.log(JSON.stringify(successes));
      // The runs must have moved money through every path, or the property proves little.
      const seen = JSON.stringify(successes);
      for (const kind of ['create', 'deposit', 'complete'])
        expect(successes[kind] ?? 0, seen).toBeGreaterThan(0);
      expect((successes.acceptApplication ?? 0) + (successes.acceptOffer ?? 0), seen).toBeGreaterThan(0);
      expect((successes.refund ?? 0) + (successes.cancel ?? 0), seen).toBeGreaterThan(0);
    },
    15 * 60_000,
  );
});

const agentIdx = fc.nat(AGENTS - 1);
const workerIdx = fc.nat(WORKERS - 1);
/** Counted back from the newest task or application (see `newest`). */
const itemIdx = fc.nat(5);
const taskOp = (kind: TaskOp) => fc.record({ kind: fc.constant(kind), task: itemIdx, worker: workerIdx });
/** Copies weigh the draw towards the steps that lead to payouts. */
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('deposit' as const),
      agent: agentIdx,
      amount: fc.constantFrom(...DEPOSITS),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      agent: agentIdx,
      reward: fc.constantFrom(...REWARDS),
      offerTo: fc.option(workerIdx, { freq: 2 }),
    }),
  },
  { weight: 6, arbitrary: taskOp('apply') },
  {
    weight: 6,
    arbitrary: fc.record({ kind: fc.constant('acceptApplication' as const), application: itemIdx }),
  },
  { weight: 4, arbitrary: taskOp('acceptOffer') },
  { weight: 1, arbitrary: taskOp('declineOffer') },
  { weight: 2, arbitrary: taskOp('start') },
  { weight: 2, arbitrary: taskOp('submit') },
  { weight: 1, arbitrary: taskOp('reject') },
  { weight: 7, arbitrary: taskOp('complete') },
  { weight: 1, arbitrary: taskOp('refund') },
  { weight: 1, arbitrary: taskOp('cancel') },
  { weight: 1, arbitrary: fc.constant({ kind: 'expire' as const }) },
);

/** The item `back` places before the newest (wrapping), so small indices hit fresh items. */
function newest<T>(items: T[], back: number): T {
  return items[items.length - 1 - (back % items.length)]!;
}

/** The statuses (as of the last batch) on which each task operation can succeed. */
const FIT: Record<TaskOp, string[]> = {
  apply: ['FUNDED'],
  acceptOffer: ['OFFERED'],
  declineOffer: ['OFFERED'],
  start: ['ASSIGNED', 'REVIEW'],
  submit: ['ASSIGNED', 'IN_PROGRESS'],
  reject: ['REVIEW'],
  complete: ['ASSIGNED', 'IN_PROGRESS', 'REVIEW'],
  refund: ['OPEN', 'FUNDED', 'OFFERED', 'ASSIGNED', 'IN_PROGRESS', 'REVIEW'],
  cancel: ['OPEN', 'FUNDED', 'OFFERED'],
};

/**
 * A task the operation could succeed on as of the last batch when there is one (so runs reach
 * payouts), else any; operations of the same batch still race for it.
 */
function pickTask(r: Run, op: { kind: TaskOp; task: number }): RunTask {
  const fitting = r.tasks.filter((k) => FIT[op.kind].includes(k.status));
  return newest(fitting.length > 0 ? fitting : r.tasks, op.task);
}

function pickApplication(r: Run, back: number): Run['applications'][number] {
  const fitting = r.applications.filter((a) => a.task.status === 'FUNDED');
  return newest(fitting.length > 0 ? fitting : r.applications, back);
}

function describeOp(o: Op): string {
  const { kind, ...rest } = o;
  return `${kind}(${Object.entries(rest)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ')})`;
}
