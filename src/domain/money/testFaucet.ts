import { findAgent } from '../../db/repositories/agents.js';
import { creditDeposit } from '../../db/repositories/balances.js';
import type { TransactionRow } from '../../db/repositories/executor.js';
import { insertLedgerRow } from '../../db/repositories/ledger.js';
import { depositLimits } from '../agents/agents.js';
import { testKeyRequired } from '../agents/testMode.js';
import type { DomainContext } from '../context.js';
import { conflict, invalid, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { inTransaction } from '../transaction.js';
import { amountText, type Currency, parseAmountField, requestedCurrency } from './currency.js';
import { NANO_PER_TON } from './money.js';

/**
 * Test money (test mode, docs/decisions/test-mode.md): `POST /test/faucet` credits an agent's
 * test twin at once, with a TEST_FAUCET ledger row and no chain. Bounded per call and per rolling
 * 24 hours, so a leaked test key can only fill a test balance, and a test balance stays far inside
 * the bounds every balance keeps (MAX_AGENT_DEPOSITED_NANO).
 */
export const TEST_FAUCET_LIMITS: Record<Currency, { perCall: bigint; perDay: bigint }> = {
  TON: { perCall: 1_000n * NANO_PER_TON, perDay: 10_000n * NANO_PER_TON },
  USDT: { perCall: 1_000n * 1_000_000n, perDay: 10_000n * 1_000_000n },
};

const DAY_MS = 86_400_000;

/** Credits the twin `agentId` (the caller is a test key's agent; a live agent is refused). */
export async function testFaucet(
  ctx: DomainContext,
  agentId: string,
  input: { amount: string | number; currency?: string },
): Promise<TransactionRow> {
  const currency = requestedCurrency(ctx.usdt, 'currency', input.currency);
  const amount = parseAmountField('amount', currency, input.amount);
  const limits = TEST_FAUCET_LIMITS[currency];
  if (amount <= 0n) throw invalid('amount', 'must be more than 0');
  if (amount > limits.perCall) {
    throw invalid('amount', `must be at most ${amountText(currency, limits.perCall)} per call`);
  }
  const now = ctx.clock.now();
  const since = new Date(now.getTime() - DAY_MS).toISOString();
  const dayRefusal = (given: bigint) =>
    conflict(
      `The test faucet gives at most ${amountText(currency, limits.perDay)} a day per agent; ${amountText(currency, given)} given in the last 24 hours. Retry later or ask for less`,
    );
  return inTransaction(ctx.db, async (trx) => {
    const agent = await findAgent(trx, agentId);
    if (!agent) throw notFound('Agent');
    if (agent.livemode !== 0) throw testKeyRequired();
    // Checked before anything is written, and again after the credit (which holds the agent's
    // row): two concurrent calls cannot both pass the daily bound.
    const given = await givenSince(trx, agentId, currency, since);
    if (given + amount > limits.perDay) throw dayRefusal(given);
    const credited = await creditDeposit(
      trx,
      agentId,
      currency,
      amount,
      depositLimits(ctx, currency).maxAgentDeposited,
      now.toISOString(),
    );
    if (!credited) throw conflict(`This test balance cannot take ${amountText(currency, amount)} more`);
    const id = newId('transaction', now.getTime());
    const row: TransactionRow = {
      id,
      agent_id: agentId,
      task_id: null,
      type: 'TEST_FAUCET',
      currency,
      amount_nano: amount,
      from_address: null,
      to_address: null,
      tx_hash: `test:${id}`,
      status: 'confirmed',
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    await insertLedgerRow(trx, row);
    const after = await givenSince(trx, agentId, currency, since);
    if (after > limits.perDay) throw dayRefusal(after - amount);
    return row;
  });
}

async function givenSince(
  trx: DomainContext['db'],
  agentId: string,
  currency: Currency,
  since: string,
): Promise<bigint> {
  const row = await trx
    .selectFrom('transactions')
    .select((eb) => eb.fn.sum<string | number | bigint | null>('amount_nano').as('total'))
    .where('agent_id', '=', agentId)
    .where('type', '=', 'TEST_FAUCET')
    .where('currency', '=', currency)
    .where('created_at', '>', since)
    .executeTakeFirst();
  return BigInt(row?.total ?? 0);
}
