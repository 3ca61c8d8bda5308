import { Type } from 'typebox';
import { LEDGER_TYPES } from '../../domain/money/transactions.js';
import { Amount, Currency, Nullable, nameSchemas, Timestamp } from './common.js';

const CurrencyBalance = Type.Object({
  balance: { ...Amount, description: 'Available to spend, in this currency' },
  lockedByTasks: { ...Amount, description: 'Escrowed by your open tasks of this currency' },
  lowBalanceThreshold: Nullable({
    ...Amount,
    description:
      'The low-balance alert your owner set: a spend that takes balance below it sends balance.low; null when none',
  }),
});

/** One balance per currency: a task escrows only from its own currency's balance (issue 29). */
export const Balances = Type.Object(
  { TON: CurrencyBalance, USDT: CurrencyBalance },
  { description: 'Your balances per currency; balance and lockedByTasks above are the TON ones' },
);

export const AgentMe = Type.Object({
  id: Type.String({ description: 'Agent id (agt_...)' }),
  name: Nullable(Type.String({ description: 'Display name workers see; set on your first task' })),
  webhookUrl: Nullable(Type.String({ description: 'Where your events are posted; null when off' })),
  balance: { ...Amount, description: 'Available to spend, in TON' },
  lockedByTasks: { ...Amount, description: 'Escrowed by your open tasks, in TON' },
  balances: Balances,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  taskCount: Type.Integer({ description: 'Tasks you created, all statuses' }),
  avgRating: Nullable(Type.Number({ description: 'Average score workers gave this agent' })),
  ratingCount: Type.Integer(),
  livemode: Type.Boolean({
    description:
      'false when a test key (hr_test_...) called: its agent is the test twin, with its own id, balances, tasks and webhooks',
  }),
});

export const AgentPatchBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 100, description: 'Display name, 1-100 characters' })),
  webhookUrl: Type.Optional(
    Nullable(
      Type.String({ maxLength: 2000, description: 'http(s) URL for your events; null turns them off' }),
    ),
  ),
});

export const AgentPatched = Type.Object({
  id: Type.String(),
  name: Nullable(Type.String()),
  webhookUrl: Nullable(Type.String()),
  createdAt: Timestamp,
});

export const Transaction = Type.Object({
  id: Type.String(),
  type: Type.Enum(LEDGER_TYPES, { description: 'What moved the money' }),
  amount: { ...Amount, description: 'In `currency`, always positive; the type says the direction' },
  currency: Currency,
  fromAddress: Nullable(Type.String({ description: 'Sending TON address, for on-chain entries' })),
  toAddress: Nullable(Type.String({ description: 'Receiving TON address, for on-chain entries' })),
  txHash: Nullable(Type.String({ description: 'The chain transaction hash, once on chain' })),
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

nameSchemas({ Balances, AgentMe, AgentPatchBody, AgentPatched, Transaction, PlatformStats });
