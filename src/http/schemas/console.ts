import { Type } from 'typebox';
import type { ApiKeyInfo } from '../../domain/agentKeys.js';
import { Amount, Nullable, Timestamp } from './common.js';

export const OwnerSessionView = Type.Object({
  owner: Type.Object({ id: Type.String(), walletAddress: Type.String() }),
  csrfToken: Type.String({ description: 'Send in X-CSRF-Token with every state-changing console request' }),
  expiresAt: Timestamp,
  network: Type.String(),
});

export const ConsoleAgent = Type.Object({
  id: Type.String(),
  name: Nullable(Type.String()),
  webhookUrl: Nullable(Type.String()),
  balance: Amount,
  lockedByTasks: Amount,
  deposited: Amount,
  spent: Amount,
  createdAt: Timestamp,
});

export const ApiKeyView = Type.Object({
  id: Type.String(),
  name: Nullable(Type.String()),
  hint: Type.String({ description: 'The prefix and last four characters' }),
  createdAt: Timestamp,
  lastUsedAt: Nullable(Timestamp),
  revokedAt: Nullable(Timestamp),
});

export const DepositInfo = Type.Object({
  network: Type.String(),
  address: Type.String(),
  memo: Type.String({ description: 'Put it in the transfer comment, or the deposit cannot be matched' }),
  link: Type.String({ description: 'ton://transfer link with the memo' }),
  payload: Type.String({ description: 'The memo as a comment cell, base64 BOC (for TON Connect)' }),
});

export const SpendingDay = Type.Object({ day: Type.String(), deposited: Amount, spent: Amount });

export const AgentKeyParams = Type.Object({
  agentId: Type.String({ maxLength: 100 }),
  keyId: Type.String({ maxLength: 100 }),
});
export const AgentParams = Type.Object({ agentId: Type.String({ maxLength: 100 }) });

export function apiKeyView(key: ApiKeyInfo) {
  return {
    id: key.id,
    name: key.name,
    hint: key.key_hint,
    createdAt: key.created_at,
    lastUsedAt: key.last_used_at,
    revokedAt: key.revoked_at,
  };
}
