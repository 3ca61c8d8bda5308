import type { Json } from '../api';
import { Stat } from '../components';
import { currencyOf, formatTon } from '../ton';

const DECIDED_BY: Record<string, string> = {
  agent: 'The agent',
  operator: 'An operator',
  auto: 'Review window (auto)',
};

/**
 * A task's money, for the owner's task page and the operator's dispute page. While the task runs:
 * the reward and the fee held with it. Once it ended: what its recorded settlement says was paid
 * to the worker, taken as fee and returned, and who decided: never the reward and fee held, which
 * a split, a graded approval or a refund changes (a 60/40 split of 3 TON pays 1.8 and takes 0.54,
 * not the 0.9 held). The numbers come from the server; nothing here computes money.
 */
export function MoneyStats({ task, returnedTo }: { task: Json | undefined; returnedTo: string }) {
  const currency = currencyOf(task);
  const settlement: Json | undefined = task?.settlement;
  if (!settlement) {
    return (
      <>
        <Stat label="Reward" value={formatTon(task?.reward)} unit={currency} />
        <Stat label="Fee held" value={formatTon(task?.platformFee)} unit={currency} />
      </>
    );
  }
  return (
    <>
      <Stat label="Reward" value={formatTon(task?.reward)} unit={currency} />
      <Stat label="Paid to the worker" value={formatTon(settlement.workerAmount)} unit={currency} />
      <Stat label="Fee taken" value={formatTon(settlement.fee)} unit={currency} />
      <Stat label={`Returned to ${returnedTo}`} value={formatTon(settlement.refunded)} unit={currency} />
      <Stat
        label="Decided by"
        value={DECIDED_BY[String(settlement.decidedBy)] ?? String(settlement.decidedBy)}
      />
    </>
  );
}
