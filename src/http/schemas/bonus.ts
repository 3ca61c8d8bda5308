import { Type } from 'typebox';
import { Amount, AmountInput, Currency, Nullable, nameSchemas, Timestamp } from './common.js';

/** POST /tasks/:id/bonus (issue 40): more than the reward, for a task that ended paid. */
export const BonusBody = Type.Object({
  amount: {
    ...AmountInput,
    description:
      'The bonus, in the task’s currency: at least the smallest reward, at most 10 times this one; the 30% fee is added on top, both from your balance',
  },
  reason: Type.String({
    minLength: 1,
    maxLength: 1000,
    description: 'Why, shown to the worker in Telegram (1-1000 characters)',
  }),
});

export const Bonus = Type.Object(
  {
    id: Type.String(),
    amount: { ...Amount, description: 'Sent to the worker’s wallet' },
    fee: { ...Amount, description: 'The platform fee on it (30%), sent to the platform' },
    currency: Currency,
    reason: Type.String(),
    createdAt: Timestamp,
  },
  { description: 'A bonus paid for a completed task, on top of its settlement' },
);

const Transfer = Type.Object({
  toAddress: Type.String(),
  txHash: Nullable(Type.String({ description: 'null while the transfer is pending; it is retried' })),
  pending: Type.Boolean({ description: 'true until the transfer is confirmed on chain' }),
});

export const BonusResult = Type.Object({
  bonus: Bonus,
  task: Type.Object({
    id: Type.String(),
    bonusCount: Type.Integer({ description: 'Bonuses this task has had, this one included (at most 5)' }),
  }),
  payment: Transfer,
  feePayment: Nullable(Transfer),
});

/** The bonuses a task has had, in its settlement (absent when none). */
export const SettlementBonuses = Type.Object(
  {
    count: Type.Integer(),
    amount: { ...Amount, description: 'Paid to the worker in bonuses, on top of workerAmount' },
    fee: { ...Amount, description: 'The platform fees on them' },
  },
  { description: 'Bonuses paid after the task ended (POST /tasks/:id/bonus); not part of totalAmount' },
);

nameSchemas({ Bonus, BonusResult });
