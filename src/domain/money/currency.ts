import { formatMoneyUnits } from '../../shared/money.js';
import { DomainError, invalid } from '../errors.js';
import { AmountFormatError, formatUnits, parseUnits } from './money.js';

/**
 * The currencies the books keep (issue 29). Every amount in the service is an integer of one
 * currency's smallest unit and travels with that currency: a task's, its ledger rows' and its
 * chain transfers' currency is the task's, and an agent has one balance per currency. Two
 * currencies' amounts are never added, compared or moved into each other.
 */
export const CURRENCIES = ['TON', 'USDT'] as const;
export type Currency = (typeof CURRENCIES)[number];

interface CurrencyFacts {
  /** Decimal places of the JSON form: the smallest unit is 10^-decimals. */
  decimals: number;
  /** What the smallest unit is called in messages. */
  unitName: string;
  /** A task's reward: from `minReward` to `maxReward` units. */
  minReward: bigint;
  maxReward: bigint;
}

const FACTS: Record<Currency, CurrencyFacts> = {
  // TON's limits are the spec's (money.ts keeps them for the code that predates currencies).
  TON: { decimals: 9, unitName: 'nanoton', minReward: 10_000_000n, maxReward: 1_000_000n * 10n ** 9n },
  // USDT on TON is a TEP-74 jetton with 6 decimals; a reward of 0.01 to 1,000,000 USDT.
  USDT: { decimals: 6, unitName: 'micro-USDT', minReward: 10_000n, maxReward: 1_000_000n * 10n ** 6n },
};

export function currencyFacts(currency: Currency): CurrencyFacts {
  return FACTS[currency];
}

export function isCurrency(value: unknown): value is Currency {
  return value === 'TON' || value === 'USDT';
}

/** Parses a decimal amount of `currency` into its smallest unit; throws AmountFormatError. */
export function parseAmount(currency: Currency, input: string | number): bigint {
  return parseUnits(input, FACTS[currency].decimals, currency);
}

/** Parses a request's amount field, answering a bad one with a 400 that names the field. */
export function parseAmountField(path: string, currency: Currency, input: string | number): bigint {
  try {
    return parseAmount(currency, input);
  } catch (error) {
    if (error instanceof AmountFormatError) throw invalid(path, error.message);
    throw error;
  }
}

/** Smallest units of `currency` to the JSON decimal form: "6.5", "100", "0.000001". */
export function formatAmount(currency: Currency, units: bigint): string {
  return formatUnits(units, FACTS[currency].decimals);
}

/** "6.5 USDT", "1,000,000 TON": an amount for an API sentence, by the one formatter (src/shared/money.ts). */
export function amountText(currency: Currency, units: bigint): string {
  return formatMoneyUnits(units, currency, 'en');
}

/** A row's currency column as the type: the database's CHECK allows only these. */
export function rowCurrency(value: string): Currency {
  if (!isCurrency(value))
    throw new Error(`Invariant violated: unknown currency ${JSON.stringify(value)} in a row`);
  return value;
}

/**
 * The currency a request names (TON when it names none), refused with a 400 when it is neither
 * currency or is USDT while USDT is not enabled (UsdtSettings in src/usdtConfig.ts).
 */
export function requestedCurrency(usdt: { enabled: boolean }, path: string, value: unknown): Currency {
  if (value === undefined || value === null) return 'TON';
  if (!isCurrency(value)) throw invalid(path, 'must be "TON" or "USDT"');
  if (value === 'USDT' && !usdt.enabled) {
    throw new DomainError('validation', 'USDT is not enabled', {
      details: [{ path, message: 'USDT is not enabled on this service: use TON' }],
    });
  }
  return value;
}
