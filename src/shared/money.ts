/**
 * The one money formatter (issue 36): every amount a person reads — in the API's sentences, the
 * bot's messages, the Mini App and the console — goes through `formatMoney`, so the same amount
 * reads the same everywhere. It imports nothing, so the server (src/) and both web apps (web/*,
 * which import it by relative path; scripts/build-web.mjs hashes this folder with each app) can
 * share it.
 *
 * The rule (docs/decisions/money-format.md): exact, never rounded — as many decimals as the
 * amount has, up to its currency's (TON 9, USDT 6), trailing zeros dropped, so zero is "0" in
 * both currencies; digits grouped and the decimal mark as the reader's language writes them;
 * the currency always after a no-break space.
 */
export type Currency = 'TON' | 'USDT';

/** Decimal places of each currency's smallest unit (as src/domain/money/currency.ts keeps them). */
export const DECIMALS: Record<Currency, number> = { TON: 9, USDT: 6 };

/** Shown for an amount that is not there (null, undefined, empty). */
export const NO_AMOUNT = '—';

const separatorCache = new Map<string, { group: string; decimal: string }>();

/** The language's digit-group and decimal marks ("," "." in English; no-break space and "," in Russian). */
function separators(locale: string): { group: string; decimal: string } {
  let found = separatorCache.get(locale);
  if (!found) {
    let parts: Intl.NumberFormatPart[];
    try {
      parts = new Intl.NumberFormat(locale).formatToParts(12345.6);
    } catch {
      // A language tag Intl refuses reads as English rather than breaking the page.
      parts = new Intl.NumberFormat('en').formatToParts(12345.6);
    }
    found = {
      group: parts.find((p) => p.type === 'group')?.value ?? ',',
      decimal: parts.find((p) => p.type === 'decimal')?.value ?? '.',
    };
    separatorCache.set(locale, found);
  }
  return found;
}

/**
 * "1,234.50" / "1 234,50": a decimal string grouped and with the decimal mark of the reader's
 * language, every digit kept (also for numbers that are not money, such as a rating "4.0");
 * anything that is not a decimal number comes back as it was.
 */
export function localizeDecimal(value: string, locale = 'en'): string {
  const match = /^(-?)(\d+)(?:\.(\d*))?$/.exec(value.trim());
  if (!match) return value;
  const [, sign, whole = '0', fraction = ''] = match;
  const { group, decimal } = separators(locale);
  return `${sign}${whole.replace(/\B(?=(\d{3})+(?!\d))/g, group)}${fraction ? decimal + fraction : ''}`;
}

/**
 * "1,234.5" / "1 234,5": an amount's digits by the money rule — exact, trailing zeros of the
 * fraction dropped (zero is "0") — in the reader's language. Works on the string, so no digit
 * of a 9-decimal amount is rounded away; anything that is not a decimal number comes back as it was.
 */
export function formatDecimal(amount: string, locale = 'en'): string {
  const match = /^(-?)(\d+)(?:\.(\d*))?$/.exec(amount.trim());
  if (!match) return amount;
  const [, sign, digits = '0', rawFraction = ''] = match;
  const whole = digits.replace(/^0+(?=\d)/, '');
  const fraction = rawFraction.replace(/0+$/, '');
  const negative = sign === '-' && (whole !== '0' || fraction !== '');
  return localizeDecimal(`${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`, locale);
}

/**
 * "12.5 TON", "1 234,5 USDT", "0 TON": a decimal amount as the API writes it, with its currency,
 * in the reader's language; "—" when there is none.
 */
export function formatMoney(amount: string | null | undefined, currency: Currency, locale = 'en'): string {
  if (amount === null || amount === undefined || amount.trim() === '') return NO_AMOUNT;
  return `${formatDecimal(amount, locale)}\u00a0${currency}`;
}

/** A currency's smallest units (nanotons, micro-USDT) as its exact decimal string: 6500000n TON is "0.0065". */
export function decimalOfUnits(units: bigint, currency: Currency): string {
  const scale = 10n ** BigInt(DECIMALS[currency]);
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const fraction = (abs % scale).toString().padStart(DECIMALS[currency], '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${abs / scale}${fraction ? `.${fraction}` : ''}`;
}

/** `formatMoney` for an amount the server holds in smallest units. */
export function formatMoneyUnits(units: bigint, currency: Currency, locale = 'en'): string {
  return formatMoney(decimalOfUnits(units, currency), currency, locale);
}
