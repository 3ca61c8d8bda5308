import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainGateway, TransferRequest, TransferResult } from '../../src/chain/gateway.js';
import { listTaskEvents } from '../../src/db/repositories/events.js';
import { attemptTransfer, sendDueTransfers } from '../../src/domain/money/payouts.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { FaultyChain } from '../helpers/faultyChain.js';
import { assignedTask, createAgent, createWorker, expectBooksBalanced } from '../helpers/fixtures.js';

/**
 * The sandbox chain with one injected fault: with `hold` set, the next transfer stops before it
 * reaches the chain until `release()`, as a send in flight on a slow or paused runner does. Every
 * call that reaches the chain is counted per transfer id: on two instances, each with its own
 * chain (the three sandbox instances), a second call is a second payment.
 */
class HeldChain extends FaultyChain {
  hold = false;
  readonly reached = new Map<string, number>();
  private waiting: (() => void)[] = [];
  /** The transfer stopped mid-send, once one is. */
  heldId: string | null = null;

  override async transfer(req: TransferRequest): Promise<TransferResult> {
    if (this.hold) {
      this.hold = false;
      this.heldId = req.transferId;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    if (!this.down) this.reached.set(req.transferId, (this.reached.get(req.transferId) ?? 0) + 1);
    return super.transfer(req);
  }

  release() {
    this.hold = false;
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}

describe('the payout first send never takes over a claim held mid-send', () => {
  let t: TestApp;
  let chain: HeldChain;
  beforeAll(async () => {
    t = await createTestApp({
      wrapChain: (inner: ChainGateway) => {
        chain = new HeldChain(inner);
        return chain;
      },
    });
  });
  afterAll(() => t.close());

  it('attemptTransfer leaves a transfer claimed by the runner alone; it is sent and recorded once', async () => {
    const agent = await createAgent(t, { deposit: '50' });
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker, { reward: '10' });
    const before = await t.services.chain.getBalance(worker.wallet!);
    // The first send fails: both transfers wait for the runner, due again after 5 s.
    chain.down = true;
    const res = await t.app.inject({
      method: 'POST',
      url: `/tasks/${taskId}/complete`,
      headers: agent.headers,
    });
    expect(res.statusCode, res.body).toBe(200);
    chain.down = false;
    t.clock.advance(6_000);

    // The background runner claims the first due transfer and stops mid-send.
    chain.hold = true;
    const runner = sendDueTransfers(t.ctx);
    for (let i = 0; i < 400 && chain.heldId === null; i++) await new Promise((r) => setTimeout(r, 5));
    const held = chain.heldId;
    expect(held).not.toBeNull();

    // Meanwhile another caller tries the same transfer (as completion's inline send does).
    const row = await attemptTransfer(t.ctx, held!);
    expect(row.status, 'still pending: the runner holds it').toBe('pending');
    expect(chain.reached.get(held!) ?? 0, 'no second send while the runner holds it').toBe(0);

    chain.release();
    await runner;
    expect(chain.reached.get(held!)).toBe(1);
    expect((await t.services.chain.getBalance(worker.wallet!)) - before).toBe(10_000_000_000n);
    const sent = (await listTaskEvents(t.ctx.db, taskId)).filter((e) => e.type === 'payment.sent');
    expect(sent).toHaveLength(1);
    expect(await sendDueTransfers(t.ctx)).toBe(0);
    await expectBooksBalanced(t);
  });
});
