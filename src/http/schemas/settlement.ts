import { Type } from 'typebox';
import { SettlementBonuses } from './bonus.js';
import { Amount, Currency, nameSchemas, Timestamp } from './common.js';

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
    bonuses: Type.Optional(SettlementBonuses),
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
    bonuses: Type.Optional(
      Type.Object(
        { count: Type.Integer(), amount: Amount },
        { description: 'Bonuses the agent paid you for this task, on top of workerAmount' },
      ),
    ),
  },
  {
    description: 'What the task paid you, present once it ended (completed, decided or cancelled)',
    examples: [{ workerAmount: '1.8', decidedBy: 'operator', currency: 'TON' }],
  },
);

nameSchemas({ Settlement, WorkerSettlement });

/** A graded approval's offer waiting for the worker's answer (issue 40). */
export const PartialOffer = Type.Object(
  {
    amount: {
      ...Amount,
      description:
        'The part of the reward offered; if the worker takes it, the fee is taken in proportion and the rest returns to the agent',
    },
    currency: Currency,
    reason: Type.String({ description: 'Why the agent offers less than the reward (1-1000 characters)' }),
    offeredAt: { ...Timestamp, description: 'When the offer was made' },
    acceptBy: {
      ...Timestamp,
      description:
        'The end of the task’s review window, restarted by the offer: the worker accepts or disputes until then; silence then accepts it',
    },
  },
  {
    description:
      'An offer of part of the reward for the waiting submission (POST /tasks/:id/complete with amount), present while it waits for the worker’s answer (POST /worker/tasks/:id/partial/accept, or a dispute); once the task ends, read settlement',
    examples: [
      {
        amount: '3',
        currency: 'TON',
        reason: 'Two of the five photos are of the wrong shelf',
        offeredAt: '2026-03-14T09:30:00.000Z',
        acceptBy: '2026-03-17T09:30:00.000Z',
      },
    ],
  },
);

nameSchemas({ PartialOffer });
