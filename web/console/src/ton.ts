import {
  type Currency,
  formatDecimal,
  formatMoney,
  formatMoneyUnits,
  NO_AMOUNT,
} from '../../../src/shared/money.js';

/** TON amounts in the page: the API writes TON as decimal strings ("2.5"), the chain counts nanotons. */
const NANO = 1_000_000_000n;

/** "2.5" to nanotons; throws a readable error for anything that is not an amount. */
export function nanoOf(ton: string): bigint {
  const match = /^(\d+)(?:\.(\d{1,9}))?$/.exec(ton.trim());
  if (!match) throw new Error('Amount: write TON as a number with at most 9 decimals, e.g. 2.5');
  return BigInt(match[1]!) * NANO + BigInt((match[2] ?? '').padEnd(9, '0'));
}

/** Nanotons (a bigint, or a decimal string as GET /admin/chain gives them) as TON, exactly. */
export function tonOf(nano: bigint | string): string {
  const value = BigInt(nano);
  const fraction = (value % NANO).toString().padStart(9, '0').replace(/0+$/, '');
  return `${value / NANO}${fraction ? `.${fraction}` : ''}`;
}

/**
 * A decimal string for reading, without its currency: thousands grouped ("12,500.25"), exact (no
 * float rounding), by the one formatter's rule; anything that is not an amount is shown as it came.
 */
export function formatTon(ton: string | null | undefined): string {
  if (ton === null || ton === undefined || ton === '') return NO_AMOUNT;
  return formatDecimal(String(ton), 'en');
}

/** The currencies the books keep (issue 29): an amount is always shown with its own. */
export type { Currency };

/** An API object's currency: the agent API names it when it is not TON (older objects: TON). */
export function currencyOf(object: { currency?: string } | null | undefined): Currency {
  return object?.currency === 'USDT' ? 'USDT' : 'TON';
}

/**
 * "12,500.25 TON", "3.5 USDT": grouped, exact, with the currency, so a USDT amount never reads
 * as TON; the one money formatter (src/shared/money.ts) that the Mini App, the bot and the API
 * use, in the console's language (English).
 */
export function formatAmount(amount: string | null | undefined, currency: Currency): string {
  return formatMoney(amount, currency, 'en');
}

/**
 * "999,988.2884036 TON": smallest units (a bigint, or a decimal string as GET /admin/chain gives
 * them) by the one formatter, exactly.
 */
export function formatUnitsAmount(units: bigint | string, currency: Currency): string {
  return formatMoneyUnits(BigInt(units), currency, 'en');
}

const DECIMALS: Record<Currency, number> = { TON: 9, USDT: 6 };

/** "2.5" of `currency` to its smallest unit (nanotons, micro-USDT); throws a readable error. */
export function unitsOf(amount: string, currency: Currency): bigint {
  if (currency === 'TON') return nanoOf(amount);
  const match = /^(\d+)(?:\.(\d{1,6}))?$/.exec(amount.trim());
  if (!match) throw new Error('Amount: write USDT as a number with at most 6 decimals, e.g. 2.5');
  return BigInt(match[1]!) * 1_000_000n + BigInt((match[2] ?? '').padEnd(6, '0'));
}

/** Smallest units of `currency` as its decimal string, exactly ("2.5"). */
export function decimalOf(units: bigint, currency: Currency): string {
  const scale = 10n ** BigInt(DECIMALS[currency]);
  const fraction = (units % scale).toString().padStart(DECIMALS[currency], '0').replace(/0+$/, '');
  return `${units / scale}${fraction ? `.${fraction}` : ''}`;
}
