/**
 * Amounts, dates and durations in the worker's language and in the phone's own time zone (the
 * Intl formatters use the device's zone when none is given). Words around them come from the
 * translation files; these only format the values.
 */
import i18next from 'i18next';

/** The worker's language as i18n.ts set it (English before it starts, e.g. in unit tests). */
function currentLanguage(): string {
  return i18next.language || 'en';
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function separators(language: string): { group: string; decimal: string } {
  const parts = new Intl.NumberFormat(language).formatToParts(12345.6);
  return {
    group: parts.find((p) => p.type === 'group')?.value ?? ',',
    decimal: parts.find((p) => p.type === 'decimal')?.value ?? '.',
  };
}

/**
 * "1,234.5" / "1 234,5": a decimal string as the API sends it, grouped and with the language's
 * decimal mark. Works on the string, so no digit of a 9-decimal amount is rounded away.
 */
export function formatNumber(amount: string, language = currentLanguage()): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (!match) return amount;
  const [, sign, whole = '0', fraction] = match;
  const { group, decimal } = separators(language);
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, group);
  return `${sign}${grouped}${fraction ? decimal + fraction : ''}`;
}

/** The currencies rewards are paid in (a task's `currency`). */
export type Currency = 'TON' | 'USDT';

/**
 * "12.5 TON", "1 234,5 TON", "3,50 USDT": always with the currency, so a USDT reward never
 * reads as TON. USDT shows at least 2 decimals (as money in dollars is read) and at most its 6;
 * TON as the API writes it (up to 9).
 */
export function formatAmount(amount: string, currency: Currency, language = currentLanguage()): string {
  return `${formatNumber(currency === 'USDT' ? twoDecimals(amount) : amount, language)}\u00a0${currency}`;
}

function twoDecimals(amount: string): string {
  const [whole, fraction = ''] = amount.trim().split('.');
  return `${whole}.${fraction.padEnd(2, '0')}`;
}

/** "Nov 29, 2026, 5:44 AM" in the phone's zone and the worker's language. */
export function formatDateTime(iso: string | null | undefined, language = currentLanguage()): string {
  if (!iso) return '';
  return new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
}

/** "Nov 29, 2026" (no time). */
export function formatDate(iso: string | null | undefined, language = currentLanguage()): string {
  if (!iso) return '';
  return new Intl.DateTimeFormat(language, { dateStyle: 'medium' }).format(new Date(iso));
}

/** A chat time: "14:05" today, "Nov 29, 14:05" this year, with the year otherwise. */
export function formatChatTime(iso: string, now = new Date(), language = currentLanguage()): string {
  const at = new Date(iso);
  const sameDay = at.toDateString() === now.toDateString();
  if (sameDay) return new Intl.DateTimeFormat(language, { timeStyle: 'short' }).format(at);
  const sameYear = at.getFullYear() === now.getFullYear();
  return new Intl.DateTimeFormat(language, {
    month: 'short',
    day: 'numeric',
    ...(sameYear ? {} : { year: 'numeric' }),
    hour: '2-digit',
    minute: '2-digit',
  }).format(at);
}

/**
 * "in 2 days", "3 hours ago", "tomorrow": the nearest sensible unit, in the worker's language.
 * Put it into a sentence with an ICU message ("Due {when}").
 */
export function formatRelative(iso: string, now = new Date(), language = currentLanguage()): string {
  const diff = new Date(iso).getTime() - now.getTime();
  const abs = Math.abs(diff);
  const rtf = new Intl.RelativeTimeFormat(language, { numeric: 'auto' });
  if (abs < HOUR) return rtf.format(Math.round(diff / MINUTE), 'minute');
  if (abs < DAY) return rtf.format(Math.round(diff / HOUR), 'hour');
  // Days count calendar days in the phone's zone, so "tomorrow" is tomorrow's date, not 24 hours.
  if (abs < 30 * DAY) return rtf.format(calendarDays(now, new Date(iso)), 'day');
  return rtf.format(Math.round(diff / (30 * DAY)), 'month');
}

function calendarDays(from: Date, to: Date): number {
  const midnight = (d: Date) => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  return Math.round((midnight(to) - midnight(from)) / DAY);
}

/** "2 days 3 hours", "5 hours", "4 minutes": a span of time in the worker's language. */
export function formatDuration(ms: number, language = currentLanguage()): string {
  const minutes = Math.max(0, Math.floor(ms / MINUTE));
  // "0 minutes" would read as no time at all (an agent who reviews at once, a window closing now).
  if (minutes < 1) return i18next.t('common.underAMinute', { lng: language });
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const mins = minutes % 60;
  const unit = (value: number, u: 'day' | 'hour' | 'minute') =>
    new Intl.NumberFormat(language, { style: 'unit', unit: u, unitDisplay: 'long' }).format(value);
  if (days > 0) return hours > 0 ? `${unit(days, 'day')} ${unit(hours, 'hour')}` : unit(days, 'day');
  if (hours > 0) return mins > 0 ? `${unit(hours, 'hour')} ${unit(mins, 'minute')}` : unit(hours, 'hour');
  return unit(mins, 'minute');
}

/** "850 m", "1.2 km" in the worker's language. */
export function formatDistance(meters: number, language = currentLanguage()): string {
  const nf = (value: number, unit: 'meter' | 'kilometer', digits: number) =>
    new Intl.NumberFormat(language, { style: 'unit', unit, maximumFractionDigits: digits }).format(value);
  if (meters < 1000) return nf(Math.round(meters), 'meter', 0);
  const km = meters / 1000;
  return nf(km, 'kilometer', km < 10 ? 1 : 0);
}

/** "2.4 MB" for a file chip. */
export function formatBytes(bytes: number, language = currentLanguage()): string {
  const [value, unit] =
    bytes < 1024
      ? [bytes, 'byte']
      : bytes < 1048576
        ? [bytes / 1024, 'kilobyte']
        : [bytes / 1048576, 'megabyte'];
  return new Intl.NumberFormat(language, {
    style: 'unit',
    unit,
    unitDisplay: 'short',
    maximumFractionDigits: unit === 'byte' ? 0 : 1,
  }).format(value);
}
