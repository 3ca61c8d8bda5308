import { Type } from 'typebox';
import { Amount, Currency, nameSchemas } from './common.js';

const DecidedBy = Type.Enum(['agent', 'operator', 'auto'], {
  description:
    'Who decided how the money went: `agent` (you: an approval, a refund or a cancel), `operator` (a dispute resolution, possibly a split), `auto` (the review window ended in silence and the work was approved for you)',
});

/** What a task's escrowed total became, recorded once when the task ended (issue 36). */
export const Settlement = Type.Object(
  {
    workerAmount: { ...Amount, description: 'Paid to the worker (0 when nothing was)' },
    fee: { ...Amount, description: 'The platform fee actually taken: in proportion to what the worker got' },
    refunded: { ...Amount, description: 'Returned to your balance of the task’s currency' },
    decidedBy: DecidedBy,
    currency: Currency,
  },
  {
    description:
      'What became of the task’s totalAmount, present once the task is COMPLETED or CANCELLED: workerAmount + fee + refunded = totalAmount. Read it rather than the reward: a dispute split or a refund pays less',
    examples: [
      { workerAmount: '1.8', fee: '0.54', refunded: '1.56', decidedBy: 'operator', currency: 'TON' },
    ],
  },
);

/** The worker's part of it: what they were paid and who decided (the fee and refund are the agent's). */
export const WorkerSettlement = Type.Object(
  {
    workerAmount: { ...Amount, description: 'What you were paid for this task (0 when nothing was)' },
    decidedBy: DecidedBy,
    currency: Currency,
  },
  {
    description: 'What the task paid you, present once it ended (completed, decided or cancelled)',
    examples: [{ workerAmount: '1.8', decidedBy: 'operator', currency: 'TON' }],
  },
);

nameSchemas({ Settlement, WorkerSettlement });
