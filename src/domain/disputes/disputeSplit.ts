import { assertInvariant } from '../errors.js';

/** How a resolution divides a task's escrowed total. All nanotons. */
export interface DisputeSplit {
  /** Sent to the worker on chain. */
  workerNano: bigint;
  /** Sent to the platform on chain: the fee in proportion to what the worker gets. */
  feeNano: bigint;
  /** Back to the agent's balance: everything else. */
  agentNano: bigint;
}

/**
 * The platform takes its fee in proportion to what the worker is paid: fee x workerAmount /
 * reward, rounded down to the nanoton (the rounding favours the agent, who gets the remainder
 * back; the platform never takes more than its share). The three parts always add up to the
 * escrowed total exactly, so conservation cannot break here whatever the amounts.
 */
export function disputeSplit(
  task: { reward_nano: bigint; fee_nano: bigint; total_nano: bigint },
  workerNano: bigint,
): DisputeSplit {
  assertInvariant(
    workerNano >= 0n && workerNano <= task.reward_nano,
    'the worker amount is within the reward',
  );
  assertInvariant(task.reward_nano > 0n, 'a task has a positive reward');
  const feeNano = (task.fee_nano * workerNano) / task.reward_nano;
  const agentNano = task.total_nano - workerNano - feeNano;
  assertInvariant(agentNano >= 0n, 'the agent part is not negative');
  assertInvariant(workerNano + feeNano + agentNano === task.total_nano, 'the split adds up to the total');
  return { workerNano, feeNano, agentNano };
}
