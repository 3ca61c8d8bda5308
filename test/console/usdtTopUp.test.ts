import { Address, Cell } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainGateway } from '../../src/chain/gateway.js';
import { JETTON_OP } from '../../src/chain/jetton/messages.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { consoleCall, consoleOk, signInOwner } from '../helpers/consoleApi.js';

/**
 * Issue 29: the console tops an agent up in USDT through TON Connect. The server builds the one
 * message the owner's wallet signs: a TEP-74 transfer to the owner's OWN jetton wallet, paying
 * the deposit address with the agent's memo as the forward comment.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('USDT in the console', () => {
  it('shows balances per currency and builds a checked jetton transfer for TON Connect', async () => {
    const owner = await signInOwner(t);
    const { agent } = await consoleOk(t, owner, 'POST', '/agents', { name: 'Scout' }, 201);
    const credited = await t.app.inject({
      method: 'POST',
      url: `/admin/agents/${agent.id}/deposits`,
      headers: t.admin,
      payload: { amount: '12.5', currency: 'USDT' },
    });
    expect(credited.statusCode, credited.body).toBe(201);

    const detail = await consoleOk(t, owner, 'GET', `/agents/${agent.id}`);
    expect(detail.agent).toMatchObject({ balance: '0', deposited: '0' });
    expect(detail.agent.balances).toMatchObject({
      TON: { balance: '0', lockedByTasks: '0', deposited: '0', spent: '0' },
      USDT: { balance: '12.5', lockedByTasks: '0', deposited: '12.5', spent: '0' },
    });
    const depositAddress = t.services.chain.depositAddress;
    // The sandbox's own "USDT (sandbox)" master.
    const master = t.services.chain.jetton!.masterAddress;
    expect(detail.usdtDeposit).toMatchObject({
      address: depositAddress,
      memo: agent.id,
      jettonMaster: master,
      minimum: '0.01',
    });
    expect(detail.usdtDeposit.link).toContain(`jetton=${master}`);

    const from = owner.wallet.address.toString();
    const res = await consoleCall(t, owner, 'POST', `/agents/${agent.id}/usdt-top-up`, {
      amount: '25.75',
      from,
    });
    expect(res.statusCode, res.body).toBe(200);
    const { message } = res.json();
    // To the sender's own jetton wallet of the USDT master, with 0.05 TON for the jetton wallets' gas.
    const jetton = t.services.chain.jetton!;
    expect(message.address).toBe(await jetton.walletAddress(from));
    expect(message.amount).toBe('50000000');
    const body = Cell.fromBase64(message.payload).beginParse();
    expect(body.loadUint(32)).toBe(JETTON_OP.transfer);
    body.loadUintBig(64); // query id
    expect(body.loadCoins()).toBe(25_750_000n);
    expect(body.loadAddress().equals(Address.parse(depositAddress))).toBe(true);
    expect(body.loadAddress().equals(owner.wallet.address)).toBe(true);
    expect(body.loadBit()).toBe(false); // no custom payload
    expect(body.loadCoins()).toBe(1n); // forward amount: the deposit address is notified
    expect(body.loadBit()).toBe(true);
    const comment = body.loadRef().beginParse();
    expect(comment.loadUint(32)).toBe(0);
    expect(comment.loadStringTail()).toBe(agent.id);

    // Bad input: a clear 400, nothing built.
    for (const [bad, field] of [
      [{ amount: '1.1234567', from }, 'amount'],
      [{ amount: '0.001', from }, 'amount'],
      [{ amount: '-1', from }, 'amount'],
      [{ amount: '5', from: 'not an address' }, 'from'],
    ] as const) {
      const refused = await consoleCall(t, owner, 'POST', `/agents/${agent.id}/usdt-top-up`, bad);
      expect(refused.statusCode, refused.body).toBe(400);
      expect(JSON.stringify(refused.json())).toContain(field);
    }
    // Another owner's agent is not found.
    const other = await signInOwner(t);
    const foreign = await consoleCall(t, other, 'POST', `/agents/${agent.id}/usdt-top-up`, {
      amount: '5',
      from,
    });
    expect(foreign.statusCode).toBe(404);
  });

  it('refuses a USDT top-up while USDT is off', async () => {
    // A gateway without a jetton: USDT is off (the one switch).
    const withoutJetton = (inner: ChainGateway) =>
      Object.defineProperty(Object.create(inner), 'jetton', { value: undefined }) as ChainGateway;
    const off = await createTestApp({ wrapChain: withoutJetton });
    try {
      const owner = await signInOwner(off);
      const { agent } = await consoleOk(off, owner, 'POST', '/agents', { name: 'Scout' }, 201);
      expect((await consoleOk(off, owner, 'GET', `/agents/${agent.id}`)).usdtDeposit).toBeNull();
      const res = await consoleCall(off, owner, 'POST', `/agents/${agent.id}/usdt-top-up`, {
        amount: '5',
        from: owner.wallet.address.toString(),
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatch(/USDT is not enabled/);
    } finally {
      await off.close();
    }
  });
});
