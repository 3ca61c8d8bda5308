import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptApiKey } from '../../src/domain/agents/apiKeys.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { agentMe, createAgent, createTask, expectBooksBalanced } from '../helpers/fixtures.js';
import { call } from '../helpers/workerApi.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

async function keyRows(agentId: string) {
  return t.ctx.db.selectFrom('api_keys').selectAll().where('agent_id', '=', agentId).execute();
}

describe('operator auth', () => {
  it('a wrong, missing or non-Bearer admin token is 401 on every operator route', async () => {
    const agent = await createAgent(t);
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong-token' },
      { authorization: `Bearer ${t.config.adminToken}x` },
      { authorization: `Bearer ${t.config.adminToken.slice(0, -1)}` },
      { authorization: t.config.adminToken },
      { authorization: `Basic ${t.config.adminToken}` },
      { authorization: `tma ${t.config.adminToken}` },
      agent.headers,
    ];
    const routes: [string, string, unknown][] = [
      ['POST', '/admin/agents', { name: 'x' }],
      ['POST', `/admin/agents/${agent.id}/deposits`, { amount: '1' }],
      ['GET', `/admin/agents/${agent.id}`, undefined],
      ['GET', '/admin/audit', undefined],
    ];
    const agentsBefore = await t.ctx.db.selectFrom('agents').select('id').execute();
    for (const headers of attempts) {
      for (const [method, url, payload] of routes) {
        const res = await call(t, method as 'GET' | 'POST', url, headers, payload);
        expect(res.statusCode, `${method} ${url} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.json().error).toBe('Unauthorized');
      }
    }
    // Nothing was created or credited by the refused calls.
    expect(await t.ctx.db.selectFrom('agents').select('id').execute()).toHaveLength(agentsBefore.length);
    expect((await agentMe(t, agent)).balance).toBe('0');
  });
});

describe('POST /admin/agents', () => {
  it('creates an agent and returns its API key once: hr_ and at least 64 characters', async () => {
    const res = await call(t, 'POST', '/admin/agents', t.admin, { name: 'Scout' });
    expect(res.statusCode, res.body).toBe(201);
    const { agent, apiKey } = res.json();
    expect(apiKey).toMatch(/^hr_[0-9a-f]{64}$/);
    expect(apiKey.length).toBeGreaterThanOrEqual(64);
    expect(agent).toEqual({
      id: expect.stringMatching(/^agt_[0-9a-z]{40}$/),
      name: 'Scout',
      webhookUrl: null,
      balance: '0',
      lockedByTasks: '0',
      balances: {
        TON: { balance: '0', lockedByTasks: '0', lowBalanceThreshold: null },
        USDT: { balance: '0', lockedByTasks: '0', lowBalanceThreshold: null },
      },
      createdAt: t.clock.now().toISOString(),
      updatedAt: t.clock.now().toISOString(),
      taskCount: 0,
      avgRating: null,
      ratingCount: 0,
      livemode: true,
    });

    const me = await call(t, 'GET', '/agents/me', { authorization: `Bearer ${apiKey}` });
    expect(me.statusCode, me.body).toBe(200);
    expect(me.json().agent).toMatchObject({ id: agent.id, name: 'Scout', balance: '0' });
    // The admin response never repeats the key.
    const seen = await call(t, 'GET', `/admin/agents/${agent.id}`, t.admin);
    expect(seen.statusCode).toBe(200);
    expect(seen.body).not.toContain(apiKey);
  });

  it('the name is optional (no body, an empty object, or null)', async () => {
    const json = { ...t.admin, 'content-type': 'application/json' };
    for (const payload of [undefined, '', '{}', 'null']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/admin/agents',
        headers: payload === undefined ? t.admin : json,
        ...(payload === undefined ? {} : { payload }),
      });
      expect(res.statusCode, `${JSON.stringify(payload)}: ${res.body}`).toBe(201);
      expect(res.json().agent.name).toBeNull();
      expect(res.json().apiKey).toMatch(/^hr_/);
    }
  });

  it('a blank or too long name is 400', async () => {
    for (const name of ['   ', 'n'.repeat(101)]) {
      const res = await call(t, 'POST', '/admin/agents', t.admin, { name });
      expect(res.statusCode, name).toBe(400);
      expect(res.json().error).toBe('Validation failed');
      expect(res.json().details[0]).toEqual({ path: 'name', message: expect.any(String) });
    }
  });

  it('stores a SHA-256 hash and an AES-GCM ciphertext of the key, never the key itself', async () => {
    const agent = await createAgent(t, { name: 'Stored' });
    const rows = await keyRows(agent.id);
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row.key_hash).toBe(createHash('sha256').update(agent.apiKey).digest('hex'));
    expect(row.key_ciphertext).toMatch(/^v1:[A-Za-z0-9_-]+:[A-Za-z0-9_-]+:[A-Za-z0-9_-]+$/);
    expect(decryptApiKey(row.key_ciphertext, t.config.secretKey)).toBe(agent.apiKey);
    expect(row.revoked_at).toBeNull();
    // No column holds the plaintext, nor its secret part.
    const secretPart = agent.apiKey.slice(3);
    for (const value of Object.values(row)) {
      if (typeof value !== 'string') continue;
      expect(value).not.toContain(agent.apiKey);
      expect(value).not.toContain(secretPart.slice(0, 16));
    }
    // The ciphertext does not open with another server secret.
    const otherSecret = Buffer.alloc(32, 7);
    expect(() => decryptApiKey(row.key_ciphertext, otherSecret)).toThrow();
  });

  it('each agent gets its own key; a key opens only its own agent', async () => {
    const a = await createAgent(t, { name: 'A' });
    const b = await createAgent(t, { name: 'B' });
    expect(a.apiKey).not.toBe(b.apiKey);
    const meA = await call(t, 'GET', '/agents/me', a.headers);
    const meB = await call(t, 'GET', '/agents/me', b.headers);
    expect(meA.json().agent.id).toBe(a.id);
    expect(meB.json().agent.id).toBe(b.id);
    const forged = `${a.apiKey.slice(0, -1)}${a.apiKey.endsWith('0') ? '1' : '0'}`;
    expect((await call(t, 'GET', '/agents/me', { authorization: `Bearer ${forged}` })).statusCode).toBe(401);
  });
});

describe('POST /admin/agents/:id/deposits', () => {
  it('sends a real sandbox transfer to the deposit wallet and credits a DEPOSIT', async () => {
    const agent = await createAgent(t);
    const chain = t.services.chain;
    const walletBefore = await chain.getBalance(chain.depositAddress);

    const res = await call(t, 'POST', `/admin/agents/${agent.id}/deposits`, t.admin, { amount: '25.5' });
    expect(res.statusCode, res.body).toBe(201);
    const transaction = res.json().transaction;
    expect(transaction).toEqual({
      id: expect.stringMatching(/^txn_[0-9a-z]{40}$/),
      type: 'DEPOSIT',
      amount: '25.5',
      currency: 'TON',
      fromAddress: expect.any(String),
      toAddress: chain.depositAddress,
      txHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      status: 'confirmed',
      createdAt: t.clock.now().toISOString(),
      task: null,
    });
    expect(transaction.fromAddress).not.toBe(chain.depositAddress);

    // The deposit wallet received the amount on chain. Its own compute fee for handling the
    // incoming message is taken from its balance, so allow a small margin below.
    const walletAfter = await chain.getBalance(chain.depositAddress);
    const grown = walletAfter - walletBefore;
    expect(grown).toBeLessThanOrEqual(25_500_000_000n);
    expect(grown).toBeGreaterThan(25_500_000_000n - 10_000_000n);

    expect(await agentMe(t, agent)).toMatchObject({ balance: '25.5', lockedByTasks: '0' });
    const ledger = await call(t, 'GET', '/transactions?type=DEPOSIT', agent.headers);
    expect(ledger.statusCode, ledger.body).toBe(200);
    expect(ledger.json().transactions).toEqual([
      expect.objectContaining({ id: transaction.id, amount: '25.5' }),
    ]);

    const second = await call(t, 'POST', `/admin/agents/${agent.id}/deposits`, t.admin, { amount: 4.5 });
    expect(second.statusCode, second.body).toBe(201);
    expect(second.json().transaction.txHash).not.toBe(transaction.txHash);
    expect((await agentMe(t, agent)).balance).toBe('30');
    await expectBooksBalanced(t);
  });

  it('the smallest deposit, 0.01 TON, arrives and is credited', async () => {
    const agent = await createAgent(t);
    const res = await call(t, 'POST', `/admin/agents/${agent.id}/deposits`, t.admin, { amount: '0.01' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().transaction.amount).toBe('0.01');
    expect((await agentMe(t, agent)).balance).toBe('0.01');
  });

  it('the deposit is spendable: a task escrows from it', async () => {
    const agent = await createAgent(t, { deposit: '13' });
    await createTask(t, agent, { reward: '10' });
    expect(await agentMe(t, agent)).toMatchObject({ balance: '0', lockedByTasks: '13' });
    await expectBooksBalanced(t);
  });

  it('bad amounts are 400 and move nothing', async () => {
    const agent = await createAgent(t);
    const chain = t.services.chain;
    const walletBefore = await chain.getBalance(chain.depositAddress);
    // 0.000000001 and 0.0001 are valid numbers but too small to arrive on chain (they were a 500).
    for (const amount of [
      0,
      '0',
      -1,
      '-1',
      'abc',
      1e-10,
      '1e-10',
      '1e3',
      '',
      '1.0000000001',
      null,
      true,
      '0.000000001',
      '0.0001',
      '1000000000.000000001',
    ]) {
      const res = await call(t, 'POST', `/admin/agents/${agent.id}/deposits`, t.admin, { amount });
      expect(res.statusCode, `${JSON.stringify(amount)}: ${res.body}`).toBe(400);
      expect(res.json().error).toBe('Validation failed');
      expect(res.json().details[0].path).toBe('amount');
    }
    const missing = await call(t, 'POST', `/admin/agents/${agent.id}/deposits`, t.admin, {});
    expect(missing.statusCode).toBe(400);
    expect(await chain.getBalance(chain.depositAddress)).toBe(walletBefore);
    expect((await agentMe(t, agent)).balance).toBe('0');
    const rows = await t.ctx.db
      .selectFrom('transactions')
      .select('id')
      .where('agent_id', '=', agent.id)
      .execute();
    expect(rows).toEqual([]);
  });

  it('an unknown agent is 404 and sends nothing', async () => {
    const chain = t.services.chain;
    const walletBefore = await chain.getBalance(chain.depositAddress);
    for (const id of [`agt_${'0'.repeat(26)}`, 'nobody']) {
      const res = await call(t, 'POST', `/admin/agents/${id}/deposits`, t.admin, { amount: '1' });
      expect(res.statusCode, id).toBe(404);
      expect(res.json()).toEqual({ error: 'Agent not found' });
    }
    expect(await chain.getBalance(chain.depositAddress)).toBe(walletBefore);
  });
});

describe('GET /admin/agents/:id and GET /admin/audit', () => {
  it('shows an agent with balance; unknown is 404', async () => {
    const agent = await createAgent(t, { name: 'Shown', deposit: '7' });
    const res = await call(t, 'GET', `/admin/agents/${agent.id}`, t.admin);
    expect(res.statusCode).toBe(200);
    expect(res.json().agent).toMatchObject({ id: agent.id, name: 'Shown', balance: '7', taskCount: 0 });
    expect((await call(t, 'GET', `/admin/agents/agt_${'0'.repeat(26)}`, t.admin)).statusCode).toBe(404);
  });

  it('the audit finds every agent consistent', async () => {
    const agent = await createAgent(t, { deposit: '50' });
    await createTask(t, agent, { reward: '3' });
    const res = await call(t, 'GET', '/admin/audit', t.admin);
    expect(res.statusCode).toBe(200);
    const agents = await t.ctx.db.selectFrom('agents').select('id').execute();
    expect(res.json()).toEqual({ ok: true, agents: agents.length, problems: [], uncreditedDeposits: [] });
  });
});
