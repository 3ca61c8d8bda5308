import { afterEach, describe, expect, it } from 'vitest';
import type { ChainGateway } from '../../src/chain/gateway.js';
import type { JettonGateway } from '../../src/chain/jetton/gateway.js';
import { call, ok } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent } from '../helpers/fixtures.js';

const BILLION = '1000000000';

/**
 * Deposits are capped so no balance, total or sum can pass the 64-bit integer both databases
 * store; the caps are checked before anything is sent on chain, and a transfer that arrived but
 * could not be credited is recorded for the operator.
 */
describe('deposit limits', { timeout: 180_000 }, () => {
  let t: TestApp;
  afterEach(() => t.close());

  const deposit = (agentId: string, amount: string) =>
    call(t, { headers: t.admin }, 'POST', `/admin/agents/${agentId}/deposits`, { amount });
  const audit = () => ok(t, { headers: t.admin }, 'GET', '/admin/audit');

  it('refuses a deposit past the agent limit before sending anything', async () => {
    t = await createTestApp();
    const agent = await createAgent(t);
    expect((await deposit(agent.id, BILLION)).statusCode).toBe(201);
    const chainBefore = await t.ctx.chain.getBalance(t.ctx.chain.depositAddress);
    for (let i = 0; i < 3; i++) {
      const res = await deposit(agent.id, BILLION);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({
        error: 'Validation failed',
        details: [{ path: 'amount', message: expect.stringContaining('1,000,000,000\u00a0TON') }],
      });
    }
    const small = await deposit(agent.id, '0.01');
    expect(small.statusCode, small.body).toBe(400);
    // Nothing moved on chain, the books hold exactly the one deposit.
    expect(await t.ctx.chain.getBalance(t.ctx.chain.depositAddress)).toBe(chainBefore);
    expect((await ok(t, agent, 'GET', '/agents/me')).agent.balance).toBe(BILLION);
    expect(await audit()).toMatchObject({ ok: true, uncreditedDeposits: [] });
  });

  it('refuses a deposit past the platform limit', async () => {
    t = await createTestApp();
    // Four agents whose books say they hold 3,999,999,999 TON together (set in the database:
    // real deposits of that size only make the test slower).
    const ton = 1_000_000_000n;
    for (const amount of [1_000_000_000n, 1_000_000_000n, 1_000_000_000n, 999_999_999n]) {
      const agent = await createAgent(t);
      await t.ctx.db
        .updateTable('agents')
        .set({ balance_nano: amount * ton, deposited_nano: amount * ton })
        .where('id', '=', agent.id)
        .execute();
    }
    const fifth = await createAgent(t);
    const chainBefore = await t.ctx.chain.getBalance(t.ctx.chain.depositAddress);
    const res = await deposit(fifth.id, '2');
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().details[0].message).toContain('platform');
    expect(await t.ctx.chain.getBalance(t.ctx.chain.depositAddress)).toBe(chainBefore);
    const last = await deposit(fifth.id, '1');
    expect(last.statusCode, last.body).toBe(201);
  });

  it('records a transfer that reached the chain but could not be credited', async () => {
    // Both deposits pass the check before either is sent (the barrier holds the first until
    // the second arrived), so the second one's credit meets the limit the first one used up.
    let arrived = 0;
    let release: () => void = () => {};
    const bothArrived = new Promise<void>((resolve) => {
      release = resolve;
    });
    const wrapChain = (chain: ChainGateway): ChainGateway =>
      Object.assign(Object.create(chain) as ChainGateway, {
        async sendTestDeposit(memo: string, amountNano: bigint) {
          if (++arrived === 2) release();
          await bothArrived;
          return chain.sendTestDeposit(memo, amountNano);
        },
      });
    t = await createTestApp({ wrapChain });
    const agent = await createAgent(t);
    const chainBefore = await t.ctx.chain.getBalance(t.ctx.chain.depositAddress);
    const answers = await Promise.all([deposit(agent.id, '600000000'), deposit(agent.id, '600000000')]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    const refused = answers.find((r) => r.statusCode === 409)!;
    expect(refused.json().error).toMatch(/not credited.*recorded/);
    // Both transfers are on chain; the books hold one, the audit shows the other.
    expect(await t.ctx.chain.getBalance(t.ctx.chain.depositAddress)).toBeGreaterThanOrEqual(
      chainBefore + 1_200_000_000n * 1_000_000_000n - 1_000_000_000n,
    );
    expect((await ok(t, agent, 'GET', '/agents/me')).agent.balance).toBe('600000000');
    const report = await audit();
    expect(report.ok).toBe(true);
    expect(report.uncreditedDeposits).toEqual([
      expect.objectContaining({
        agentId: agent.id,
        amount: '600000000',
        currency: 'TON',
        reason: expect.any(String),
      }),
    ]);
  });

  it('records a USDT transfer that could not be credited in USDT', async () => {
    // The same race in USDT: both jetton transfers reach the deposit address's jetton wallet.
    let arrived = 0;
    let release: () => void = () => {};
    const bothArrived = new Promise<void>((resolve) => {
      release = resolve;
    });
    const wrapChain = (chain: ChainGateway): ChainGateway => {
      const jetton = chain.jetton!;
      const wrapped = Object.assign(Object.create(jetton) as JettonGateway, {
        async sendTestDeposit(memo: string, amount: bigint) {
          if (++arrived === 2) release();
          await bothArrived;
          return jetton.sendTestDeposit(memo, amount);
        },
      });
      // The gateway's `jetton` is a getter: the wrapper shadows it with its own property.
      return Object.defineProperty(Object.create(chain), 'jetton', { value: wrapped }) as ChainGateway;
    };
    t = await createTestApp({ wrapChain });
    const agent = await createAgent(t);
    const usdt = (amount: string) =>
      call(t, { headers: t.admin }, 'POST', `/admin/agents/${agent.id}/deposits`, {
        amount,
        currency: 'USDT',
      });
    const answers = await Promise.all([usdt('600000000'), usdt('600000000')]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    const me = await ok(t, agent, 'GET', '/agents/me');
    expect(me.agent.balances.USDT.balance).toBe('600000000');
    expect(me.agent.balance).toBe('0');
    const report = await audit();
    expect(report.ok).toBe(true);
    expect(report.uncreditedDeposits).toEqual([
      expect.objectContaining({ agentId: agent.id, amount: '600000000', currency: 'USDT' }),
    ]);
  });
});
