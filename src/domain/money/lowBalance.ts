import { balanceOf, lowBalanceThresholdOf, setLowBalanceThresholds } from '../../db/repositories/balances.js';
import type { AgentRow, Executor } from '../../db/repositories/executor.js';
import type { DomainContext } from '../context.js';
import { assertInvariant, invalid } from '../errors.js';
import { recordEvent } from '../events/events.js';
import { inTransaction } from '../transaction.js';
import {
  amountText,
  CURRENCIES,
  type Currency,
  currencyFacts,
  formatAmount,
  parseAmountField,
} from './currency.js';

/**
 * Low-balance alerts (issue 38, docs/decisions/low-balance-alerts.md). The owner sets a threshold
 * per agent and currency; a spend (a task's or a batch's escrow, a bonus, a task an approval
 * funds) that takes the available balance from at or above it to below it records `balance.low`
 * in the spend's own transaction. No "already alerted" flag is kept: the spend's compare-and-set
 * UPDATE returns the row after the move, under the agent's row lock, so `after + amount` is
 * exactly the balance this spend started from, and of any number of concurrent spends exactly one
 * starts at or above the threshold and ends below it. Money coming back (a top-up, a refund) lifts
 * the balance above again, which is what re-arms the alert.
 */

/** A threshold above a billion whole units of its currency is a typo, as for spend limits. */
const MAX_THRESHOLD_WHOLE_UNITS = 1_000_000_000n;

/** The wire form: per currency a decimal amount, or null to remove that currency's alert. */
export type LowBalancePatch = Partial<Record<string, string | number | null>>;

/**
 * After a spend of `amountNano` of `currency` moved the agent's balance (`agent` is the row the
 * spend's UPDATE returned): records `balance.low` when this spend crossed the owner's threshold.
 */
export async function noteSpend(
  trx: Executor,
  agent: AgentRow,
  currency: Currency,
  amountNano: bigint,
  now: Date,
): Promise<void> {
  const threshold = lowBalanceThresholdOf(agent, currency);
  if (threshold === null) return;
  const after = balanceOf(agent, currency).balance;
  const before = after + amountNano;
  if (!(before >= threshold && after < threshold)) return;
  await recordEvent(trx, {
    agentId: agent.id,
    taskId: null,
    type: 'balance.low',
    data: {
      currency,
      available: formatAmount(currency, after),
      threshold: formatAmount(currency, threshold),
    },
    now,
    webhookUrl: agent.webhook_url,
  });
}

/**
 * The owner sets or removes thresholds (absent currency: unchanged, null: removed). Each must be
 * an amount of its currency above 0 and at most a billion; bad input is a 400 naming the field
 * and nothing is written.
 */
export function setLowBalanceAlerts(ctx: DomainContext, agentId: string, patch: LowBalancePatch) {
  const thresholds: Partial<Record<Currency, bigint | null>> = {};
  for (const [currency, value] of Object.entries(patch)) {
    if (!(CURRENCIES as readonly string[]).includes(currency)) {
      throw invalid(currency, 'is not a currency: low-balance alerts are per currency, "TON" or "USDT"');
    }
    if (value === undefined) continue;
    thresholds[currency as Currency] = value === null ? null : parseThreshold(currency as Currency, value);
  }
  // Unknown fields were stripped by the route's schema, so "EUR" alone arrives as nothing.
  if (Object.keys(thresholds).length === 0) {
    throw invalid('TON', 'give a threshold for TON or USDT (a decimal amount, or null to remove the alert)');
  }
  const at = ctx.clock.now().toISOString();
  return inTransaction(ctx.db, async (trx) => {
    const agent = await setLowBalanceThresholds(trx, agentId, thresholds, at);
    assertInvariant(agent !== undefined, 'the owner’s agent exists while its alerts are set');
    return agent;
  });
}

function parseThreshold(currency: Currency, value: string | number): bigint {
  if (
    (typeof value === 'string' && value.trim().startsWith('-')) ||
    (typeof value === 'number' && value < 0)
  ) {
    throw invalid(
      currency,
      'must not be negative; give the balance below which you want to hear, or null for no alert',
    );
  }
  const units = parseAmountField(currency, currency, value);
  if (units === 0n) {
    throw invalid(currency, 'must be above 0 (a balance is never below 0); give null to remove the alert');
  }
  const max = MAX_THRESHOLD_WHOLE_UNITS * 10n ** BigInt(currencyFacts(currency).decimals);
  if (units > max) throw invalid(currency, `must be at most ${amountText(currency, max)}`);
  return units;
}

/** The alert as views show it: the threshold (null when none) and whether the balance is below it now. */
export function lowBalanceView(agent: AgentRow, currency: Currency) {
  const threshold = lowBalanceThresholdOf(agent, currency);
  return {
    lowBalanceThreshold: threshold === null ? null : formatAmount(currency, threshold),
    belowThreshold: threshold !== null && balanceOf(agent, currency).balance < threshold,
  };
}
