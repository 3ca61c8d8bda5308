import { Type } from 'typebox';
import {
  DISPUTE_REASON_MAX,
  STATEMENT_ATTACHMENTS_MAX,
  STATEMENT_TEXT_MAX,
  STATEMENTS_PER_SIDE_MAX,
} from '../../domain/disputeLimits.js';
import { Amount, AmountInput, Limit, Nullable, nameSchemas, Timestamp } from './common.js';
import { PaymentStatus, TaskStatus } from './task.js';

const Party = Type.Enum(['AGENT', 'WORKER']);

export const DisputeAttachment = Type.Object({
  fileUrl: Type.String({ description: 'The uploaded file (GET it with the same credentials)' }),
  name: Type.String(),
  contentType: Type.String(),
  size: Type.Integer({ description: 'Bytes' }),
});

export const DisputeResolution = Type.Object({
  workerAmount: { ...Amount, description: 'Sent to the worker’s wallet on chain, in TON' },
  platformFee: {
    ...Amount,
    description: 'The platform fee in proportion: fee x workerAmount / reward, rounded down to the nanoton',
  },
  agentAmount: { ...Amount, description: 'Returned to the agent’s balance: the rest of the escrowed total' },
  note: Type.String({ description: 'The operator’s explanation to both sides' }),
  resolvedAt: Timestamp,
  currency: Type.Literal('TON'),
});

export const DisputeStatement = Type.Object({
  by: Party,
  text: Type.String(),
  attachments: Type.Array(DisputeAttachment),
  createdAt: Timestamp,
});

export const Dispute = Type.Object({
  id: Type.String({ description: 'Dispute id (dsp_...)' }),
  status: Type.Enum(['OPEN', 'RESOLVED']),
  openedBy: Party,
  reason: Type.String(),
  statements: Type.Array(DisputeStatement, { description: 'Evidence from both sides, oldest first' }),
  resolution: Nullable(DisputeResolution),
});

export const OpenDisputeBody = Type.Object({
  reason: Type.String({
    minLength: 1,
    maxLength: DISPUTE_REASON_MAX,
    description: `What is wrong, for the operator who judges (1 to ${DISPUTE_REASON_MAX} characters)`,
  }),
});

export const StatementBody = Type.Object({
  text: Type.String({
    minLength: 1,
    maxLength: STATEMENT_TEXT_MAX,
    description: `Your side, 1 to ${STATEMENT_TEXT_MAX} characters; at most ${STATEMENTS_PER_SIDE_MAX} statements per side`,
  }),
  attachments: Type.Optional(
    Type.Array(Type.String({ maxLength: 2000 }), {
      maxItems: STATEMENT_ATTACHMENTS_MAX,
      description: `Up to ${STATEMENT_ATTACHMENTS_MAX} fileUrls of your own uploads (POST /upload first)`,
    }),
  ),
});

export const StatementResult = Type.Object({ statement: DisputeStatement, dispute: Dispute });

export const DisputeQueueQuery = Type.Object({
  status: Type.Enum(['OPEN', 'RESOLVED'], { default: 'OPEN' }),
  limit: Limit(20, 100),
  cursor: Type.Optional(Type.String({ maxLength: 400 })),
});

const Money = Type.Object({
  reward: Amount,
  platformFee: Amount,
  totalAmount: { ...Amount, description: 'Escrowed: what the resolution splits' },
});

export const DisputeQueueItem = Type.Object({
  id: Type.String(),
  status: Type.Enum(['OPEN', 'RESOLVED']),
  openedBy: Party,
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
      'What the worker gets, 0 to the task’s reward, in TON: 0 cancels and refunds, the reward completes',
  },
  note: Type.String({
    minLength: 1,
    maxLength: 2000,
    description: 'Your decision’s reasons, shown to both sides',
  }),
});

const TransferOut = Type.Object({
  amount: Amount,
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
      { amount: Amount, destination: Type.Literal('agent_balance') },
      { description: 'Back to the agent' },
    ),
  ),
});

nameSchemas({
  DisputeAttachment,
  DisputeResolution,
  DisputeStatement,
  Dispute,
  OpenDisputeBody,
  StatementBody,
  DisputeQueueItem,
  ResolveBody,
  ResolveResult,
});
