import en from './en.json' with { type: 'json' };
import ru from './ru.json' with { type: 'json' };

/**
 * The bot's message files, one per language (ICU message format; Telegram HTML inside). A
 * translator edits only the JSON; a new language is its file plus its line here and in
 * src/domain/workers/language.ts (test/unit/botLocales.test.ts checks the lists and the messages agree).
 */
export const BOT_LOCALES: Record<string, unknown> = { en, ru };
