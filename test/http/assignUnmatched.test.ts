import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertUnmatchedDeposit } from '../../src/db/repositories/unmatchedDeposits.js';
import { creditChainDeposit } from '../../src/domain/agents/agents.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { agentMe, createAgent, expectBooksBalanced, type TestAgent } from '../helpers/fixtures.js';

/**
 * POST /admin/deposits/unmatched/:txHash/assign. Unmatched deposits come from the network-mode
 * watcher; here they are planted as it writes them, so the rules run on both databases without a
 * chain: the assignment and its credit are one transaction, a transfer already credited to
 * another agent is refused, and assigning to the agent already credited is a replay.
 */
describe('assigning an unmatched deposit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const FROM = 'EQD__________________________________________0vo';

  async function plantUnmatched(amountNano: bigint): Promise<string> {
    const txHash = randomBytes(32).toString('hex');
    await insertUnmatchedDeposit(t.ctx.db, {
      tx_hash: txHash,
      lt: '1',
      from_address: FROM,
      amount_nano: amountNano,
      memo: 'no such agent',
      reason: 'unknown_memo',
      status: 'open',
      agent_id: null,
      resolved_at: null,
      created_at: t.clock.now().toISOString(),
    });
    return txHash;
  }

  function assign(txHash: string, agent: TestAgent) {
    return t.app.inject({
      method: 'POST',
      url: `/admin/deposits/unmatched/${txHash}/assign`,
      headers: t.admin,
      payload: { agentId: agent.id },
    });
  }

  async function unmatchedRow(txHash: string) {
    return t.ctx.db
      .selectFrom('unmatched_deposits')
      .selectAll()
      .where('tx_hash', '=', txHash)
      .executeTakeFirstOrThrow();
  }

  it('credits the agent once; assigning it to that agent again answers the same credit', async () => {
    const agent = await createAgent(t);
    const txHash = await plantUnmatched(3_000_000_000n);
    const first = await assign(txHash, agent);
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().transaction).toMatchObject({ type: 'DEPOSIT', amount: '3', txHash });
    const again = await assign(txHash, agent);
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json().transaction.id).toBe(first.json().transaction.id);
    expect((await agentMe(t, agent)).balance).toBe('3');
    expect(await unmatchedRow(txHash)).toMatchObject({ status: 'assigned', agent_id: agent.id });
    await expectBooksBalanced(t);
  });

  it('refuses (409, naming the agent credited) a transfer the ledger already credits to another agent', async () => {
    const credited = await createAgent(t);
    const other = await createAgent(t);
    const txHash = await plantUnmatched(2_000_000_000n);
    // The ledger already holds this transfer for `credited` while the deposit is still open.
    const row = await creditChainDeposit(t.ctx, credited.id, {
      txHash,
      fromAddress: FROM,
      toAddress: t.services.chain.depositAddress,
      amountNano: 2_000_000_000n,
    });
    const res = await assign(txHash, other);
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json()).toMatchObject({ agentId: credited.id, transactionId: row.id });
    expect(res.json().error).toContain(credited.id);
    expect((await agentMe(t, other)).balance).toBe('0');
    expect((await agentMe(t, credited)).balance).toBe('2');
    expect(await unmatchedRow(txHash)).toMatchObject({ status: 'open', agent_id: null });

    // Assigning it to the agent the ledger credits settles the open deposit without a second credit.
    const settle = await assign(txHash, credited);
    expect(settle.statusCode, settle.body).toBe(201);
    expect(settle.json().transaction.id).toBe(row.id);
    expect((await agentMe(t, credited)).balance).toBe('2');
    expect(await unmatchedRow(txHash)).toMatchObject({ status: 'assigned', agent_id: credited.id });
    await expectBooksBalanced(t);
  });

  it('two operators assigning one deposit to two agents at once: one credit, the other 409', async () => {
    const a = await createAgent(t);
    const b = await createAgent(t);
    const txHash = await plantUnmatched(5_000_000_000n);
    const answers = await Promise.all([assign(txHash, a), assign(txHash, b)]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    const winner = answers[0]!.statusCode === 201 ? a : b;
    const loser = winner === a ? b : a;
    expect((await agentMe(t, winner)).balance).toBe('5');
    expect((await agentMe(t, loser)).balance).toBe('0');
    expect(await unmatchedRow(txHash)).toMatchObject({ status: 'assigned', agent_id: winner.id });
    await expectBooksBalanced(t);
  });

  it('a deposit recorded as returned is not credited (409) and stays returned', async () => {
    const agent = await createAgent(t);
    const txHash = await plantUnmatched(1_000_000_000n);
    const returned = await t.app.inject({
      method: 'POST',
      url: `/admin/deposits/unmatched/${txHash}/returned`,
      headers: t.admin,
    });
    expect(returned.statusCode, returned.body).toBe(200);
    const res = await assign(txHash, agent);
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json().error).toMatch(/returned/);
    expect((await agentMe(t, agent)).balance).toBe('0');
    expect(await unmatchedRow(txHash)).toMatchObject({ status: 'returned' });
  });

  it('the audit reports a transfer booked twice (credited and still open) or not at all (assigned, not credited)', async () => {
    const agent = await createAgent(t);
    const txHash = await plantUnmatched(1_500_000_000n);
    // Credited behind the operator's back, totals kept consistent so no balance check sees it.
    const row = await creditChainDeposit(t.ctx, agent.id, {
      txHash,
      fromAddress: FROM,
      toAddress: t.services.chain.depositAddress,
      amountNano: 1_500_000_000n,
    });
    const audit = async () =>
      (await t.app.inject({ method: 'GET', url: '/admin/audit', headers: t.admin })).json();
    expect(await audit()).toMatchObject({
      ok: false,
      problems: [
        {
          agentId: agent.id,
          problems: [
            `deposit ${row.id} credits chain transfer ${txHash}, which is also an unmatched deposit (open)`,
          ],
        },
      ],
    });
    // Settling it the way the 409 says (assign it to the agent credited) clears the problem.
    expect((await assign(txHash, agent)).statusCode).toBe(201);
    expect(await audit()).toMatchObject({ ok: true, problems: [] });

    const lost = await plantUnmatched(2_500_000_000n);
    await t.ctx.db
      .updateTable('unmatched_deposits')
      .set({ status: 'assigned', agent_id: agent.id, resolved_at: t.clock.now().toISOString() })
      .where('tx_hash', '=', lost)
      .execute();
    expect(await audit()).toMatchObject({
      ok: false,
      problems: [
        {
          agentId: agent.id,
          problems: [`unmatched deposit ${lost} is assigned to this agent but no DEPOSIT row credits it`],
        },
      ],
    });
    await t.ctx.db.deleteFrom('unmatched_deposits').where('tx_hash', '=', lost).execute();
    await expectBooksBalanced(t);
  });
});
