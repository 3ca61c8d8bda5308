import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { MAX_PLATFORM_DEPOSITED_NANO } from '../../src/domain/agents/agents.js';
import { amountText } from '../../src/domain/money/currency.js';
import { NANO_PER_TON } from '../../src/domain/money/money.js';
import {
  FAUCET_OPERATOR_RESERVE_NANO,
  MAX_AGENTS_CREATED_PER_OWNER_PER_HOUR,
  MAX_FAUCET_PER_OWNER_PER_DAY_NANO,
  MAX_KEYS_CREATED_PER_OWNER_PER_HOUR,
  MAX_OFFERS_FROM_OWNER_PER_WORKER_PER_DAY,
  MAX_OFFERS_TO_WORKER_PER_DAY,
} from '../../src/domain/owners/ownerLimits.js';
import { MAX_OFFERS_PER_WORKER_PER_DAY } from '../../src/domain/tasks/taskCreation.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { consoleCall, consoleOk, signInOwner, type TestOwner } from '../helpers/consoleApi.js';
import { createAgent, createWorker, deposit, type TestAgent, type TestWorker } from '../helpers/fixtures.js';
import { call } from '../helpers/workerApi.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const ton = (nano: bigint) => (nano / NANO_PER_TON).toString();
// How the API's sentences write an amount: the one money formatter.
const tonText = (nano: bigint) => amountText('TON', nano);

function expectRateLimited(res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }) {
  expect(res.statusCode, JSON.stringify(res.json())).toBe(429);
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThan(0);
  expect(res.json()).toMatchObject({ retryAfter });
  return res.json() as { error: string; retryAfter: number };
}

/** An agent the owner made in the console, as an API client holding its key. */
async function ownedAgent(owner: TestOwner, name: string): Promise<TestAgent> {
  const { agent, apiKey } = await consoleOk(t, owner, 'POST', '/agents', { name }, 201);
  return { id: agent.id, apiKey, headers: { authorization: `Bearer ${apiKey}` } };
}

const offer = (agent: TestAgent, worker: TestWorker) =>
  call(t, 'POST', '/tasks', agent.headers, {
    title: 'Direct job',
    description: 'Only for you',
    reward: '0.01',
    assignToUserId: worker.id,
  });

describe('direct offers are bounded per worker, whoever sends them', () => {
  it(`one owner's agents together send one worker at most ${MAX_OFFERS_FROM_OWNER_PER_WORKER_PER_DAY} offers a day`, async () => {
    const owner = await signInOwner(t);
    const agents: TestAgent[] = [];
    for (const name of ['First', 'Second', 'Third']) {
      const agent = await ownedAgent(owner, name);
      await deposit(t, agent.id, '10');
      agents.push(agent);
    }
    const worker = await createWorker(t);
    expect(MAX_OFFERS_FROM_OWNER_PER_WORKER_PER_DAY).toBeLessThan(3 * MAX_OFFERS_PER_WORKER_PER_DAY);
    for (let i = 0; i < MAX_OFFERS_FROM_OWNER_PER_WORKER_PER_DAY; i++) {
      const res = await offer(agents[i % 3]!, worker);
      expect(res.statusCode, res.body).toBe(201);
    }
    const tasksBefore = await t.ctx.db.selectFrom('tasks').select('id').execute();
    const refused = expectRateLimited(await offer(agents[2]!, worker));
    expect(refused.error).toMatch(
      new RegExp(
        `^This worker got ${MAX_OFFERS_FROM_OWNER_PER_WORKER_PER_DAY} direct offers from your owner's agents in the last 24 hours, the most allowed`,
      ),
    );
    // Nothing was written: no task, no escrow.
    expect(await t.ctx.db.selectFrom('tasks').select('id').execute()).toHaveLength(tasksBefore.length);
    // Another worker can still get this owner's offers.
    expect((await offer(agents[2]!, await createWorker(t))).statusCode).toBe(201);
    t.clock.advance(DAY_MS);
    expect((await offer(agents[0]!, worker)).statusCode).toBe(201);
  });

  it(`a worker gets at most ${MAX_OFFERS_TO_WORKER_PER_DAY} offers a day from all agents together`, async () => {
    const worker = await createWorker(t);
    const perAgent = MAX_OFFERS_PER_WORKER_PER_DAY;
    const senders = Math.ceil(MAX_OFFERS_TO_WORKER_PER_DAY / perAgent) + 1;
    const agents: TestAgent[] = [];
    for (let i = 0; i < senders; i++) agents.push(await createAgent(t, { deposit: '10' }));
    let sent = 0;
    for (const agent of agents) {
      for (let i = 0; i < perAgent && sent < MAX_OFFERS_TO_WORKER_PER_DAY; i++, sent++) {
        const res = await offer(agent, worker);
        expect(res.statusCode, res.body).toBe(201);
      }
    }
    const refused = expectRateLimited(await offer(agents[agents.length - 1]!, worker));
    expect(refused.error).toMatch(
      new RegExp(
        `^This worker got ${MAX_OFFERS_TO_WORKER_PER_DAY} direct offers in the last 24 hours, the most one worker may get; retry in \\d+ s, or post the task without assignToUserId so anyone can apply$`,
      ),
    );
  });

  it('holds when two instances on one database take concurrent offers from many agents', async () => {
    const second = await buildApp({
      config: t.config,
      db: t.services.db,
      chain: t.services.chain,
      clock: t.clock,
    });
    try {
      const worker = await createWorker(t);
      const senders = Math.ceil(MAX_OFFERS_TO_WORKER_PER_DAY / MAX_OFFERS_PER_WORKER_PER_DAY) + 2;
      const agents: TestAgent[] = [];
      for (let i = 0; i < senders; i++) agents.push(await createAgent(t, { deposit: '10' }));
      const attempts = agents.flatMap((agent, i) =>
        Array.from({ length: MAX_OFFERS_PER_WORKER_PER_DAY }, (_, j) =>
          ((i + j) % 2 === 0 ? t.app : second).inject({
            method: 'POST',
            url: '/tasks',
            headers: agent.headers,
            payload: {
              title: 'Direct job',
              description: 'Only for you',
              reward: '0.01',
              assignToUserId: worker.id,
            },
          }),
        ),
      );
      const codes = (await Promise.all(attempts)).map((r) => r.statusCode);
      expect(codes.filter((c) => c === 201)).toHaveLength(MAX_OFFERS_TO_WORKER_PER_DAY);
      expect(codes.filter((c) => c !== 201).every((c) => c === 429)).toBe(true);
      const offered = await t.ctx.db
        .selectFrom('tasks')
        .select('id')
        .where('worker_id', '=', worker.id)
        .execute();
      expect(offered).toHaveLength(MAX_OFFERS_TO_WORKER_PER_DAY);
    } finally {
      await second.close();
    }
  });
});

describe('agent and key creation are rate-limited per owner', () => {
  it(`an owner creates at most ${MAX_AGENTS_CREATED_PER_OWNER_PER_HOUR} agents an hour`, async () => {
    const owner = await signInOwner(t);
    for (let i = 0; i < MAX_AGENTS_CREATED_PER_OWNER_PER_HOUR; i++) {
      await consoleOk(t, owner, 'POST', '/agents', { name: `Agent ${i}` }, 201);
    }
    const refused = expectRateLimited(await consoleCall(t, owner, 'POST', '/agents', { name: 'One more' }));
    expect(refused.error).toMatch(
      new RegExp(`^You created ${MAX_AGENTS_CREATED_PER_OWNER_PER_HOUR} agents in the last hour`),
    );
    expect((await consoleOk(t, owner, 'GET', '/agents')).agents).toHaveLength(
      MAX_AGENTS_CREATED_PER_OWNER_PER_HOUR,
    );
    t.clock.advance(HOUR_MS);
    await consoleOk(t, owner, 'POST', '/agents', { name: 'Next hour' }, 201);
  });

  it(`an owner creates at most ${MAX_KEYS_CREATED_PER_OWNER_PER_HOUR} keys an hour, revoked ones and agents' first keys included`, async () => {
    const owner = await signInOwner(t);
    const agents = [await ownedAgent(owner, 'Keys A'), await ownedAgent(owner, 'Keys B')];
    // Create and revoke at once: the live-key cap alone never stops this.
    for (let i = 2; i < MAX_KEYS_CREATED_PER_OWNER_PER_HOUR; i++) {
      const agentId = agents[i % 2]!.id;
      const { key } = await consoleOk(t, owner, 'POST', `/agents/${agentId}/keys`, { name: `k${i}` }, 201);
      await consoleOk(t, owner, 'POST', `/agents/${agentId}/keys/${key.id}/revoke`);
    }
    const refused = expectRateLimited(
      await consoleCall(t, owner, 'POST', `/agents/${agents[0]!.id}/keys`, { name: 'extra' }),
    );
    expect(refused.error).toMatch(
      new RegExp(`^You created ${MAX_KEYS_CREATED_PER_OWNER_PER_HOUR} API keys in the last hour`),
    );
    // A new agent comes with a key, so it waits too.
    expectRateLimited(await consoleCall(t, owner, 'POST', '/agents', { name: 'Keys C' }));
    t.clock.advance(HOUR_MS);
    await consoleOk(t, owner, 'POST', `/agents/${agents[0]!.id}/keys`, { name: 'later' }, 201);
  });
});

describe('the sandbox faucet is capped per owner and never fills the platform', () => {
  const faucet = (owner: TestOwner, agentId: string, amount: string) =>
    consoleCall(t, owner, 'POST', `/agents/${agentId}/faucet`, { amount });

  it(`an owner's agents together take at most ${ton(MAX_FAUCET_PER_OWNER_PER_DAY_NANO)} TON a day from the faucet`, async () => {
    const owner = await signInOwner(t);
    const a = await ownedAgent(owner, 'Faucet A');
    const b = await ownedAgent(owner, 'Faucet B');
    const cap = MAX_FAUCET_PER_OWNER_PER_DAY_NANO;
    const first = await faucet(owner, a.id, ton((cap * 6n) / 10n));
    expect(first.statusCode, first.body).toBe(201);
    const over = expectRateLimited(await faucet(owner, b.id, ton((cap * 5n) / 10n)));
    expect(over.error).toBe(
      `The sandbox faucet gives one owner at most ${tonText(cap)} in 24 hours; ${tonText((cap * 4n) / 10n)} is left now; ask for less or retry in ${over.retryAfter} s`,
    );
    const rest = await faucet(owner, b.id, ton((cap * 4n) / 10n));
    expect(rest.statusCode, rest.body).toBe(201);
    expectRateLimited(await faucet(owner, a.id, '1'));
    t.clock.advance(DAY_MS);
    // (The session ended meanwhile: the same wallet signs in again, the same owner.)
    expect((await faucet(await signInOwner(t, owner.wallet), a.id, '1')).statusCode).toBe(201);
  });

  it('the faucet keeps the last part of the platform deposit cap for the operator', async () => {
    // The operator's deposits fill the platform up to the reserve.
    const room = MAX_PLATFORM_DEPOSITED_NANO - FAUCET_OPERATOR_RESERVE_NANO;
    const platform = await t.ctx.db
      .selectFrom('agents')
      .select((eb) => eb.fn.sum<string>('deposited_nano').as('n'))
      .executeTakeFirstOrThrow();
    let left = room - BigInt(platform.n ?? 0);
    const billion = 1_000_000_000n * NANO_PER_TON;
    while (left > 0n) {
      const amount = left > billion ? billion : left;
      const agent = await createAgent(t);
      await deposit(t, agent.id, ton(amount));
      left -= amount;
    }
    const owner = await signInOwner(t);
    const mine = await ownedAgent(owner, 'Late comer');
    const refused = await faucet(owner, mine.id, '1');
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().error).toBe(
      `The sandbox faucet is closed: the platform's deposits reached ${tonText(room)}, and the last ${tonText(FAUCET_OPERATOR_RESERVE_NANO)} of its ${tonText(MAX_PLATFORM_DEPOSITED_NANO)} cap are kept for the operator`,
    );
    // The operator can still deposit.
    await deposit(t, mine.id, '1');
  });
});
