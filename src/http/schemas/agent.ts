import { Type } from 'typebox';
import { LEDGER_TYPES } from '../../domain/transactions.js';
import { Amount, Nullable, Timestamp } from './common.js';

export const AgentMe = Type.Object({
  id: Type.String(),
  name: Nullable(Type.String()),
  webhookUrl: Nullable(Type.String()),
  balance: Amount,
  lockedByTasks: Amount,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  taskCount: Type.Integer(),
  avgRating: Nullable(Type.Number({ description: 'Average score workers gave this agent' })),
  ratingCount: Type.Integer(),
});

export const AgentPatchBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 100 })),
  webhookUrl: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
});

export const AgentPatched = Type.Object({
  id: Type.String(),
  name: Nullable(Type.String()),
  webhookUrl: Nullable(Type.String()),
  createdAt: Timestamp,
});

export const Transaction = Type.Object({
  id: Type.String(),
  type: Type.Enum(LEDGER_TYPES),
  amount: Amount,
  fromAddress: Nullable(Type.String()),
  toAddress: Nullable(Type.String()),
  txHash: Nullable(Type.String()),
  status: Type.String({ description: '"confirmed", or "pending" while a payout or fee is not yet on chain' }),
  createdAt: Timestamp,
  task: Nullable(Type.Object({ id: Type.String(), title: Type.String() })),
});

const CountTotal = Type.Object({ count: Type.Integer(), total: Amount });
export const PlatformStats = Type.Object({
  agent: Type.Object({ id: Type.String(), name: Nullable(Type.String()) }),
  tasks: Type.Object({
    total: Type.Integer(),
    byStatus: Type.Record(Type.String(), Type.Integer()),
  }),
  transactions: Type.Object({ deposits: CountTotal, payouts: CountTotal, refunds: CountTotal }),
  summary: Type.Object({
    totalDeposited: Amount,
    totalSpent: Amount,
    platformFeesCollected: Amount,
    currency: Type.Literal('TON'),
  }),
});
