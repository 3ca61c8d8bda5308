import { Type } from 'typebox';
import type { ApiKeyInfo } from '../../domain/agents/agentKeys.js';
import { policyView, spendingView } from '../../domain/agents/keyPolicies.js';
import { scopesOf } from '../../domain/agents/keyScopes.js';
import { Amount, AmountInput, Nullable, Timestamp } from './common.js';

export const OwnerSessionView = Type.Object({
  owner: Type.Object({ id: Type.String(), walletAddress: Type.String() }),
  csrfToken: Type.String({ description: 'Send in X-CSRF-Token with every state-changing console request' }),
  expiresAt: Timestamp,
  network: Type.String(),
});

/** An agent's money in one currency. */
const CurrencyMoney = Type.Object({
  balance: Amount,
  lockedByTasks: Amount,
  deposited: Amount,
  spent: Amount,
  lowBalanceThreshold: Nullable({ ...Amount, description: 'The low-balance alert; null when none' }),
  belowThreshold: Type.Boolean({ description: 'true while balance is below lowBalanceThreshold' }),
});

/** PUT /console/api/agents/:agentId/low-balance: per currency a threshold, null removes it. */
const ThresholdInput = Type.Optional(
  Type.Unsafe<string | number | null>({
    anyOf: [AmountInput, { type: 'null' }],
    description: 'A decimal amount above 0 and at most 1,000,000,000 of the currency; null removes the alert',
  }),
);
export const LowBalanceBody = Type.Object(
  { TON: ThresholdInput, USDT: ThresholdInput },
  { additionalProperties: false },
);

export const ConsoleAgent = Type.Object({
  id: Type.String(),
  name: Nullable(Type.String()),
  webhookUrl: Nullable(Type.String()),
  balance: Amount,
  lockedByTasks: Amount,
  deposited: Amount,
  spent: Amount,
  balances: Type.Object(
    { TON: CurrencyMoney, USDT: CurrencyMoney },
    { description: 'Per currency, each in its own units; the top-level four are the TON ones' },
  ),
  createdAt: Timestamp,
});

export { ApiKeyView } from './keyPolicy.js';

export const DepositInfo = Type.Object({
  network: Type.String(),
  address: Type.String(),
  memo: Type.String({ description: 'Put it in the transfer comment, or the deposit cannot be matched' }),
  link: Type.String({ description: 'ton://transfer link with the memo' }),
  payload: Type.String({ description: 'The memo as a comment cell, base64 BOC (for TON Connect)' }),
});

export const UsdtDepositInfo = Type.Object({
  network: Type.String(),
  address: Type.String({ description: 'The deposit address: the jetton transfer’s destination (owner)' }),
  memo: Type.String({ description: 'The forward payload’s text comment, or the deposit cannot be matched' }),
  link: Type.String({ description: 'ton://transfer link with the jetton master and the memo' }),
  jettonMaster: Type.String({ description: 'The USDT jetton master: only its jetton counts' }),
  minimum: Amount,
});

export const UsdtTopUpBody = Type.Object({
  amount: AmountInput,
  from: Type.String({ maxLength: 100, description: 'The owner wallet connected through TON Connect' }),
});

/** One TON Connect `sendTransaction` message (address, nanotons attached, base64 BOC body). */
export const WalletMessage = Type.Object({
  address: Type.String({ description: 'The sender’s own USDT jetton wallet' }),
  amount: Type.String({ description: 'Nanotons attached for the jetton wallets’ gas' }),
  payload: Type.String({ description: 'TEP-74 transfer body, base64 BOC' }),
});

export const SpendingDay = Type.Object({ day: Type.String(), deposited: Amount, spent: Amount });

export const AgentKeyParams = Type.Object({
  agentId: Type.String({ maxLength: 100 }),
  keyId: Type.String({ maxLength: 100 }),
});
export const AgentParams = Type.Object({ agentId: Type.String({ maxLength: 100 }) });

export function apiKeyView(key: ApiKeyInfo, now: Date) {
  return {
    id: key.id,
    name: key.name,
    hint: key.key_hint,
    createdAt: key.created_at,
    lastUsedAt: key.last_used_at,
    revokedAt: key.revoked_at,
    scopes: scopesOf(key.scopes),
    spendPolicy: policyView(key.spend),
    spending: spendingView(key.spend, now),
  };
}

/** The calling key, for GET /agents/me. */
export function callingKeyView(key: ApiKeyInfo, now: Date) {
  return {
    id: key.id,
    name: key.name,
    scopes: scopesOf(key.scopes),
    spendPolicy: policyView(key.spend),
    spending: spendingView(key.spend, now),
  };
}

/** Per currency, an amount (issue 38: a key's spending per day in the console). */
const PerCurrency = Type.Object({ TON: Amount, USDT: Amount });

/** One UTC day of a key's spending: what it escrowed (tasks, bonuses, fees) and what refunds gave back. */
export const KeySpendingDay = Type.Object({ day: Type.String(), spent: PerCurrency, refunded: PerCurrency });

/** One line of a key's activity log: a ledger row or an event of a task the key escrowed. */
export const KeyActivityItem = Type.Object({
  id: Type.String(),
  at: Timestamp,
  source: Type.Enum(['ledger', 'event']),
  kind: Type.String({ description: "The ledger row's type (TASK_ESCROW, PAYOUT, ...) or the event's type" }),
  actor: Type.Enum(['key', 'agent', 'operator', 'auto', 'worker']),
  taskId: Nullable(Type.String()),
  taskTitle: Nullable(Type.String()),
  currency: Nullable(Type.String()),
  amount: Nullable(Amount),
});
