import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import {
  agentMe,
  assignedTask,
  createAgent,
  createWorker,
  expectBooksBalanced,
} from '../helpers/fixtures.js';

describe('the whole flow, read back from the chain', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('deposit -> task -> apply -> accept -> complete pays the worker and the fee address on chain', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker, { reward: '6.5' });
    const workerBefore = await t.services.chain.getBalance(worker.wallet!);
    const feeBefore = await t.services.chain.getBalance(t.services.chain.feeAddress);

    const res = await t.app.inject({
      method: 'POST',
      url: `/tasks/${taskId}/complete`,
      headers: agent.headers,
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.task).toEqual({ id: taskId, status: 'COMPLETED', paymentStatus: 'RELEASED' });
    expect(body.payment).toMatchObject({ amount: '6.5', toAddress: worker.wallet, status: 'confirmed' });
    expect(body.payment.txHash).toMatch(/^[0-9a-f]{64}$/);
    expect(body.fee).toMatchObject({ amount: '1.95', toAddress: t.services.chain.feeAddress, success: true });

    expect((await t.services.chain.getBalance(worker.wallet!)) - workerBefore).toBe(6_500_000_000n);
    expect((await t.services.chain.getBalance(t.services.chain.feeAddress)) - feeBefore).toBe(1_950_000_000n);
    expect(await agentMe(t, agent)).toMatchObject({ balance: '91.55', lockedByTasks: '0', taskCount: 1 });
    await expectBooksBalanced(t);
  });
});
