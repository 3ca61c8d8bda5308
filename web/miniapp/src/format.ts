/**
 * Amounts, dates and durations in the worker's language and in the phone's own time zone (the
 * Intl formatters use the device's zone when none is given). Words around them come from the
 * translation files; these only format the values.
 */
import i18next from 'i18next';
import { type Currency, formatDecimal, formatMoney, localizeDecimal } from '../../../src/shared/money.js';

/** The worker's language as i18n.ts set it (English before it starts, e.g. in unit tests). */
function currentLanguage(): string {
  return i18next.language || 'en';
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * "1,234.5" / "1 234,5": a decimal string as the API sends it (a rating, a count), grouped and
 * with the language's decimal mark, every digit kept (src/shared/money.ts).
 */
export function formatNumber(amount: string, language = currentLanguage()): string {
  return localizeDecimal(amount, language);
}

export type { Currency };

/**
 * "12.5 TON", "1 234,5 TON", "3,5 USDT": always with the currency, so a USDT reward never reads
 * as TON; the same rule, zero form and language as the bot, the console and the API
 * (src/shared/money.ts).
 */
export function formatAmount(amount: string, currency: Currency, language = currentLanguage()): string {
  return formatMoney(amount, currency, language);
}

/**
 * What the worker was actually paid when it is not the reward (a split or lost dispute, issue 36),
 * read from the task's settlement; null while the task is open or when the whole reward was paid.
 */
export function paidLessThanReward(task: {
  reward: string;
  settlement?: { workerAmount: string } | undefined;
}): string | null {
  const paid = task.settlement?.workerAmount;
  if (paid === undefined) return null;
  return formatDecimal(paid) === formatDecimal(task.reward) ? null : paid;
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
