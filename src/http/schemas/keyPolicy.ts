import { Type } from 'typebox';
import { LIMIT_FIELDS } from '../../domain/agents/keyPolicies.js';
import { SCOPES } from '../../domain/agents/keyScopes.js';
import { Amount, AmountInput, Nullable, nameSchemas, Timestamp } from './common.js';

const limitText: Record<(typeof LIMIT_FIELDS)[number], string> = {
  maxTaskAmount: "The most one task's total (reward + fee) may be",
  dailyLimit: 'The most the key may escrow in a UTC day',
  monthlyLimit: 'The most the key may escrow in a UTC month',
  approvalAbove:
    "A task whose total is above it needs the owner's approval (refused with 403 until approvals exist); at most maxTaskAmount",
};

/** One currency's limits as shown: an amount, or null for no such limit. */
export const CurrencyPolicy = Type.Object(
  Object.fromEntries(
    LIMIT_FIELDS.map((f) => [f, Nullable({ ...Amount, description: `${limitText[f]}; null: no limit` })]),
  ) as Record<(typeof LIMIT_FIELDS)[number], ReturnType<typeof Nullable<typeof Amount>>>,
);

export const SpendPolicy = Type.Object(
  { TON: CurrencyPolicy, USDT: CurrencyPolicy },
  { description: "The key's limits per currency, on the amounts it escrows (a task's total)" },
);

export const CurrencySpending = Type.Object({
  spentToday: { ...Amount, description: 'Escrowed by this key today (UTC), less what refunds gave back' },
  leftToday: Nullable({ ...Amount, description: 'What dailyLimit leaves today; null: no daily limit' }),
  spentThisMonth: { ...Amount, description: 'Escrowed by this key this month (UTC), less refunds' },
  leftThisMonth: Nullable({ ...Amount, description: 'What monthlyLimit leaves; null: no monthly limit' }),
});

export const Spending = Type.Object({ TON: CurrencySpending, USDT: CurrencySpending });

export const ScopeList = Type.Array(Type.Enum([...SCOPES]), {
  maxItems: SCOPES.length,
  description: `What the key may do: ${SCOPES.join(', ')}`,
});

/** A key as its owner and the operator see it. */
export const ApiKeyView = Type.Object({
  id: Type.String(),
  name: Nullable(Type.String()),
  hint: Type.String({ description: 'The prefix and last four characters' }),
  createdAt: Timestamp,
  lastUsedAt: Nullable(Timestamp),
  revokedAt: Nullable(Timestamp),
  scopes: ScopeList,
  spendPolicy: SpendPolicy,
  spending: Spending,
});

const LimitInput = Type.Optional(
  Type.Unsafe<string | number | null>({
    anyOf: [AmountInput, { type: 'null' }],
    description: 'A decimal amount from 0 to 1,000,000,000 of the currency; null removes the limit',
  }),
);

/** Limits of one currency to change: absent ones stay as they are. */
const CurrencyPolicyPatch = Type.Object(
  Object.fromEntries(LIMIT_FIELDS.map((f) => [f, LimitInput])) as Record<
    (typeof LIMIT_FIELDS)[number],
    typeof LimitInput
  >,
  { additionalProperties: false },
);

export const KeyPatchBody = Type.Object(
  {
    spendPolicy: Type.Optional(
      Type.Record(Type.String({ maxLength: 10 }), CurrencyPolicyPatch, {
        maxProperties: 2,
        description: 'Per currency (TON, USDT), the limits to set; null removes one, absent leaves it',
      }),
    ),
    scopes: Type.Optional({ ...ScopeList, description: "The key's scopes (replaces the list)" }),
  },
  { additionalProperties: false },
);

/** GET /agents/me: the calling key. */
export const CallingKey = Type.Object({
  id: Type.String(),
  name: Nullable(Type.String()),
  scopes: ScopeList,
  spendPolicy: SpendPolicy,
  spending: Spending,
});

nameSchemas({
  CurrencyPolicy,
  SpendPolicy,
  CurrencySpending,
  Spending,
  ApiKeyView,
  KeyPatchBody,
  CallingKey,
});
