/**
 * Money is integers of each currency's smallest unit (bigint) everywhere inside the service;
 * decimal strings exist only at the JSON edge. Nothing here ever touches a float. This file holds
 * the decimal arithmetic and TON's own constants; currency.ts knows each currency's decimals and
 * is what code handling a task's, a row's or a request's currency calls.
 */
export const NANO_PER_TON = 1_000_000_000n;
export const MIN_REWARD_NANO = 10_000_000n; // 0.01 TON
export const MAX_REWARD_NANO = 1_000_000n * NANO_PER_TON;
/** The platform fee is 30% of the reward: FEE_NUMERATOR / FEE_DENOMINATOR. */
const FEE_NUMERATOR = 30n;
const FEE_DENOMINATOR = 100n;

const DECIMAL = /^(0|[1-9]\d*)(\.\d+)?$/;

export class AmountFormatError extends Error {}

/**
 * Parses a TON amount given as a decimal string (or a JSON number, which is read through its
 * shortest decimal form) into nanotons. No sign, no exponent, at most 9 decimal places.
 */
export function parseTon(input: string | number): bigint {
  return parseUnits(input, 9, 'TON');
}

/**
 * Parses a decimal amount of a currency with `decimals` decimal places into its smallest unit.
 * The message of a refusal names the currency and its limit of decimals.
 */
export function parseUnits(input: string | number, decimals: number, currency: string): bigint {
  const text = typeof input === 'number' ? numberToDecimal(input) : input.trim();
  const match = DECIMAL.exec(text);
  if (!match) {
    throw new AmountFormatError(
      `must be a decimal ${currency} amount such as "6.5": digits, an optional point and at most ${decimals} decimals`,
    );
  }
  const digits = (match[2] ?? '.').slice(1);
  if (digits.length > decimals) {
    throw new AmountFormatError(
      `has ${digits.length} decimals: ${currency} amounts have at most ${decimals} decimals (the smallest ${currency} unit is ${formatUnits(1n, decimals)})`,
    );
  }
  return BigInt(match[1]!) * 10n ** BigInt(decimals) + BigInt(digits.padEnd(decimals, '0') || '0');
}

/** Units of a currency with `decimals` decimal places to the JSON form (no trailing zeros). */
export function formatUnits(units: bigint, decimals: number): string {
  if (decimals === 9) return formatTon(units);
  const scale = 10n ** BigInt(decimals);
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const fraction = (abs % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${abs / scale}${fraction ? `.${fraction}` : ''}`;
}

function numberToDecimal(value: number): string {
  if (!Number.isFinite(value)) return 'invalid';
  const text = String(value);
  // String(1e-7) is "1e-7": spell such numbers out so they parse or fail on their decimals.
  return /e/i.test(text) ? value.toFixed(20).replace(/0+$/, '').replace(/\.$/, '') : text;
}

const MAX_EXACT_NANO = BigInt(Number.MAX_SAFE_INTEGER);

/** Nanotons to the JSON form: "6.5", "100", "0.013" (no exponent, no trailing zeros). */
export function formatTon(nano: bigint): string {
  // Most amounts fit a double exactly: formatted with number arithmetic, a third of the BigInt
  // path's time (every task view formats three amounts).
  if (nano >= 0n && nano <= MAX_EXACT_NANO) {
    const n = Number(nano);
    const whole = Math.floor(n / 1e9);
    const fraction = n - whole * 1e9;
    // Should the rounded division put the integer part off by one, the fraction falls outside
    // [0, 1e9) and the BigInt path below formats the amount.
    if (fraction >= 0 && fraction < 1e9) return withFraction(String(whole), String(fraction));
  }
  const negative = nano < 0n;
  const abs = negative ? -nano : nano;
  return `${negative ? '-' : ''}${withFraction(String(abs / NANO_PER_TON), String(abs % NANO_PER_TON))}`;
}

/** "12" and "500000000" nanotons make "12.5"; a fraction of "0" leaves the whole number. */
function withFraction(whole: string, fraction: string): string {
  if (fraction === '0') return whole;
  const digits = fraction.padStart(9, '0');
  let end = 9;
  while (digits.charCodeAt(end - 1) === 48) end--;
  return `${whole}.${digits.slice(0, end)}`;
}

/** 30% of the reward, rounded half-up to the nanoton. */
export function platformFeeFor(rewardNano: bigint): bigint {
  if (rewardNano < 0n) throw new RangeError('reward cannot be negative');
  return (rewardNano * FEE_NUMERATOR * 2n + FEE_DENOMINATOR) / (FEE_DENOMINATOR * 2n);
}

export interface TaskCost {
  rewardNano: bigint;
  feeNano: bigint;
  totalNano: bigint;
}

export function taskCost(rewardNano: bigint): TaskCost {
  const feeNano = platformFeeFor(rewardNano);
  return { rewardNano, feeNano, totalNano: rewardNano + feeNano };
}
