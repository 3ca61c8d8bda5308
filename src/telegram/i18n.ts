import IntlMessageFormat from 'intl-messageformat';
import { DEFAULT_LANGUAGE, isLanguage, type Language } from '../domain/workers/language.js';
import { type Currency, formatMoney } from '../shared/money.js';
import { BOT_LOCALES } from './locales/index.js';

/**
 * Who a bot message is for: the worker's stored language and, when the profile has one, time
 * zone. Without a zone the bot writes times in UTC and says so.
 */
export interface Reader {
  language: string | null;
  timeZone: string | null;
}

export const DEFAULT_READER: Reader = { language: DEFAULT_LANGUAGE, timeZone: null };

type Values = Record<string, string | number>;

const cache = new Map<string, IntlMessageFormat>();

function lookup(language: Language, key: string): string | undefined {
  let node: unknown = BOT_LOCALES[language];
  for (const part of key.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return typeof node === 'string' ? node : undefined;
}

function readerLanguage(language: string | null | undefined): Language {
  return isLanguage(language) ? language : DEFAULT_LANGUAGE;
}

/**
 * A message from the reader's language file (English when that file lacks it, which the locale
 * test forbids). Tags such as <b> are Telegram HTML, not ICU rich text: values are escaped by
 * the caller and inserted as they are.
 */
export function botText(language: string | null | undefined, key: string, values: Values = {}): string {
  const lang = readerLanguage(language);
  const id = `${lang}:${key}`;
  let format = cache.get(id);
  if (!format) {
    const source = lookup(lang, key) ?? lookup(DEFAULT_LANGUAGE, key);
    if (source === undefined) throw new Error(`bot message ${key} is missing`);
    format = new IntlMessageFormat(source, lang, undefined, { ignoreTag: true });
    cache.set(id, format);
  }
  return String(format.format(values));
}

/**
 * "1,234.5 TON" / "1 234,5 USDT": an amount with its currency in the reader's language, by the
 * one money formatter (src/shared/money.ts) the API and both web apps use.
 */
export function botAmount(language: string | null | undefined, amount: string, currency: Currency): string {
  return formatMoney(amount, currency, readerLanguage(language));
}

/**
 * "Jan 4, 2030, 1:00 PM GMT+3" / "4 янв. 2030 г., 13:00 UTC": a moment in the reader's zone,
 * always naming the zone (UTC when the profile has none), so nobody mistakes whose clock it is.
 */
export function botTime(reader: Reader, iso: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const options: Intl.DateTimeFormatOptions = {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZoneName: 'short',
  };
  try {
    return new Intl.DateTimeFormat(readerLanguage(reader.language), {
      ...options,
      timeZone: reader.timeZone ?? 'UTC',
    }).format(at);
  } catch {
    // A zone ICU no longer knows (the profile check accepted it once): UTC, said explicitly.
    return new Intl.DateTimeFormat(readerLanguage(reader.language), { ...options, timeZone: 'UTC' }).format(
      at,
    );
  }
}
