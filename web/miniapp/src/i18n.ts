/**
 * The worker's language. Every word on screen comes from a translation file in ./locales (one
 * JSON file per language, ICU message format: plurals and selects are written in the message, so
 * a translator edits only that file). Adding a language is adding its file: the list below is
 * read from the folder, and the language's own name is its `language.name` message.
 *
 * The language is chosen in this order: what the worker picked in the profile, else Telegram's
 * `language_code`, else English. A regional code (`ru-RU`, `pt-br`) falls back to its base
 * language when there is no file for the region.
 */
import i18next from 'i18next';
import ICU from 'i18next-icu';
import { initReactI18next } from 'react-i18next';

type Messages = Record<string, unknown>;

const files = import.meta.glob<Messages>('./locales/*.json', { eager: true, import: 'default' });

const resources: Record<string, { translation: Messages }> = {};
for (const [path, messages] of Object.entries(files)) {
  const code = /\/([a-z]{2,3}(?:-[A-Za-z]{2,4})?)\.json$/.exec(path)?.[1];
  if (code) resources[code.toLowerCase()] = { translation: messages };
}

export const FALLBACK_LANGUAGE = 'en';

/** The languages there is a file for, e.g. ['en', 'ru']. */
export const LANGUAGES: readonly string[] = Object.keys(resources).sort();

/** The language a code asks for, if there is a file for it (or for its base language). */
export function supportedLanguage(code: string | null | undefined): string | null {
  if (!code) return null;
  const lower = code.trim().toLowerCase().replace('_', '-');
  if (LANGUAGES.includes(lower)) return lower;
  const base = lower.split('-')[0] ?? '';
  return LANGUAGES.includes(base) ? base : null;
}

/** The first of the candidates there is a file for, else English. */
export function pickLanguage(...candidates: (string | null | undefined)[]): string {
  for (const candidate of candidates) {
    const found = supportedLanguage(candidate);
    if (found) return found;
  }
  return FALLBACK_LANGUAGE;
}

/** Starts i18next in `language`; the screens then read words with `useTranslation()`. */
export function startI18n(language: string): typeof i18next {
  void i18next
    .use(ICU)
    .use(initReactI18next)
    .init({
      resources,
      lng: pickLanguage(language),
      fallbackLng: FALLBACK_LANGUAGE,
      // React escapes what it renders; escaping here too would show "&amp;" in a task title.
      interpolation: { escapeValue: false },
      // Resources are bundled: init is synchronous, so the first render is already translated.
      initAsync: false,
    });
  document.documentElement.lang = i18next.language;
  return i18next;
}

/** Switches the whole app to another language (the profile's choice). */
export async function changeLanguage(language: string): Promise<void> {
  await i18next.changeLanguage(pickLanguage(language));
  document.documentElement.lang = i18next.language;
}

/** The current language, for Intl formatters. */
export function currentLanguage(): string {
  return i18next.language || FALLBACK_LANGUAGE;
}

export { i18next };
