import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ok } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent } from '../helpers/fixtures.js';

describe('GET /agents/me/deposit (sandbox)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('tells the agent where to send TON and which memo to put in the comment', async () => {
    const agent = await createAgent(t);
    const info = await ok(t, agent, 'GET', '/agents/me/deposit');
    expect(info).toEqual({
      network: 'sandbox',
      address: t.services.chain.depositAddress,
      memo: agent.id,
      link: `ton://transfer/${t.services.chain.depositAddress}?text=${agent.id}`,
      minimum: '0.01',
      currency: 'TON',
    });
  });

  it('needs the agent key', async () => {
    expect((await call(t, { headers: {} }, 'GET', '/agents/me/deposit')).statusCode).toBe(401);
  });

  it('reconciliation needs the chain history the sandbox does not keep: a clear 409', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/admin/reconciliation', headers: t.admin });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatch(/TON_NETWORK=testnet or mainnet/);
  });
});
