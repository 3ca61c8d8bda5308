import { Type } from 'typebox';
import { Amount, AmountInput, Currency, Limit, Nullable, nameSchemas, Timestamp } from './common.js';
import { Dispute, DisputeParty, DisputeResolution } from './dispute.js';
import { PaymentStatus, TaskStatus } from './task.js';

/** The operators' dispute schemas (GET /admin/disputes, GET /admin/disputes/:id, resolve). */
export const DisputeQueueQuery = Type.Object({
  status: Type.Enum(['OPEN', 'RESOLVED'], { default: 'OPEN' }),
  limit: Limit(20, 100),
  cursor: Type.Optional(Type.String({ maxLength: 400 })),
});

const Money = Type.Object({
  currency: Currency,
  reward: Amount,
  platformFee: Amount,
  totalAmount: { ...Amount, description: 'Escrowed: what the resolution splits' },
});

export const DisputeQueueItem = Type.Object({
  id: Type.String(),
  status: Type.Enum(['OPEN', 'RESOLVED']),
  openedBy: DisputeParty,
  reason: Type.String(),
  createdAt: Timestamp,
  ageSeconds: Type.Integer({ description: 'Seconds since the dispute was opened' }),
  task: Type.Object({ id: Type.String(), title: Type.String(), status: TaskStatus, ...Money.properties }),
  agent: Type.Object({ id: Type.String(), name: Nullable(Type.String()) }),
  worker: Type.Object({ id: Type.String(), firstName: Type.String(), username: Nullable(Type.String()) }),
  resolution: Nullable(DisputeResolution),
});

export const ResolveBody = Type.Object({
  workerAmount: {
    ...AmountInput,
    description:
      'What the worker gets, in the task’s currency: 0 (cancels and refunds) or from 0.01 (TON or USDT, the smallest reward; a smaller payout costs more in gas than it pays) to the task’s reward (completes)',
  },
  currency: Type.Optional({
    ...Currency,
    description: 'The task’s currency, to confirm it: another one is a 400 and nothing is resolved',
  }),
  note: Type.String({
    minLength: 1,
    maxLength: 2000,
    description: 'Your decision’s reasons, shown to both sides',
  }),
});

const TransferOut = Type.Object({
  amount: Amount,
  currency: Currency,
  toAddress: Type.String(),
  txHash: Nullable(Type.String({ description: 'null while pending; the runner retries it' })),
  status: Type.Enum(['confirmed', 'pending']),
});

export const ResolveResult = Type.Object({
  dispute: Dispute,
  task: Type.Object({ id: Type.String(), status: TaskStatus, paymentStatus: PaymentStatus }),
  payout: Nullable(TransferOut),
  fee: Nullable(TransferOut),
  refund: Nullable(
    Type.Object(
      { amount: Amount, destination: Type.Literal('agent_balance'), currency: Currency },
      { description: 'Back to the agent' },
    ),
  ),
});

nameSchemas({ DisputeQueueItem, ResolveBody, ResolveResult });
