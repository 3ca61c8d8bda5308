import { type Currency, decimalOf, unitsOf } from './ton.js';

/**
 * Where the escrowed money goes when an operator resolves a dispute with `workerAmount`: the
 * worker gets that much on chain, the platform takes its fee in proportion (fee x workerAmount /
 * reward, rounded down to the nanoton) and everything else returns to the agent's balance. The
 * server computes the same (issue 25); this is what the operator sees before confirming.
 */
export interface Split {
  worker: bigint;
  fee: bigint;
  agent: bigint;
}

export function splitOf(
  rewardNano: bigint,
  feeNano: bigint,
  workerNano: bigint,
  currency: Currency = 'TON',
): Split {
  if (rewardNano <= 0n) throw new Error('The task has no reward to split');
  if (workerNano < 0n || workerNano > rewardNano)
    throw new Error(
      `The worker’s amount must be between 0 and the reward, ${decimalOf(rewardNano, currency)} ${currency}`,
    );
  const fee = (feeNano * workerNano) / rewardNano;
  return { worker: workerNano, fee, agent: rewardNano + feeNano - workerNano - fee };
}

/**
 * The split for an amount typed in the task's currency, or the reason it cannot be one. Amounts
 * are in that currency's smallest unit (nanotons; micro-USDT for a USDT task, as the server
 * rounds its fee), so the operator sees exactly what the server will do.
 */
export function splitForInput(
  reward: string,
  fee: string,
  input: string,
  currency: Currency = 'TON',
): Split | { error: string } {
  try {
    return splitOf(unitsOf(reward, currency), unitsOf(fee, currency), unitsOf(input, currency), currency);
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** The worker's amount at `percent` of the reward, rounded down to the currency's smallest unit. */
export function amountAtPercent(reward: string, percent: number, currency: Currency = 'TON'): string {
  const pct = BigInt(Math.max(0, Math.min(100, Math.round(percent))));
  return decimalOf((unitsOf(reward, currency) * pct) / 100n, currency);
}

/** Which whole percent of the reward an amount is (for the slider), or null if it is not an amount. */
export function percentOf(reward: string, amount: string, currency: Currency = 'TON'): number | null {
  try {
    const r = unitsOf(reward, currency);
    return r === 0n ? 0 : Number((unitsOf(amount, currency) * 100n) / r);
  } catch {
    return null;
  }
}
