/**
 * The languages the worker's side speaks: the bot has a message file for each
 * (src/telegram/locales) and so has the Mini App (web/miniapp/src/locales); a unit test keeps the
 * three lists equal. The worker's language is read from Telegram's language_code at sign-in
 * until the worker picks one in the profile.
 */
export const LANGUAGES = ['en', 'ru'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'en';

export function isLanguage(code: unknown): code is Language {
  return typeof code === 'string' && (LANGUAGES as readonly string[]).includes(code);
}

/**
 * The supported language a Telegram language_code asks for: an IETF tag ("ru", "ru-RU", "pt-br")
 * by its base language; anything else, or none, is English.
 */
export function languageOf(code: string | null | undefined): Language {
  if (!code) return DEFAULT_LANGUAGE;
  const base = code.trim().toLowerCase().replace('_', '-').split('-')[0];
  return isLanguage(base) ? base : DEFAULT_LANGUAGE;
}
