/**
 * The bot's message files (src/telegram/locales/*.json) stay usable by translators: every
 * language has exactly English's messages, each valid ICU (Telegram HTML tags kept as text) with
 * English's placeholders; and the bot, the Mini App and the server's list of languages agree.
 */
import path from 'node:path';
import { parse } from '@formatjs/icu-messageformat-parser';
import { describe, expect, it } from 'vitest';
import { LANGUAGES } from '../../src/domain/workers/language.js';
import { BOT_LOCALES } from '../../src/telegram/locales/index.js';
import { localeCodes as codes, placeholders, readLocales } from '../helpers/icuLocales.js';

const DIR = path.resolve(import.meta.dirname, '../../src/telegram/locales');
const MINIAPP_DIR = path.resolve(import.meta.dirname, '../../web/miniapp/src/locales');

/** HTML tags in each message, in order: a translation must keep Telegram's markup balanced. */
function tags(text: string): string {
  return (text.match(/<\/?[a-z]+>/g) ?? []).sort().join('');
}

const languages = readLocales(DIR);
const english = languages.find((l) => l.code === 'en')!.messages;

describe('bot translations', () => {
  it('the bot, the Mini App and the server list the same languages', () => {
    expect(codes(DIR)).toEqual([...LANGUAGES].sort());
    expect(Object.keys(BOT_LOCALES).sort()).toEqual([...LANGUAGES].sort());
    expect(codes(MINIAPP_DIR)).toEqual([...LANGUAGES].sort());
  });

  for (const { code, messages } of languages) {
    describe(code, () => {
      it('has exactly the messages English has', () => {
        expect(
          [...messages.keys()].filter((k) => !english.has(k)),
          'messages English lacks',
        ).toEqual([]);
        expect(
          [...english.keys()].filter((k) => !messages.has(k)),
          'messages to translate',
        ).toEqual([]);
      });

      it('writes each message in valid ICU with the English placeholders and HTML tags', () => {
        const problems: string[] = [];
        for (const [key, text] of messages) {
          let mine: Set<string>;
          try {
            mine = placeholders(parse(text, { ignoreTag: true }));
          } catch (error) {
            problems.push(`${key}: ${(error as Error).message}`);
            continue;
          }
          const source = english.get(key) ?? '';
          const theirs = placeholders(parse(source, { ignoreTag: true }));
          const a = [...mine].sort().join(',');
          const b = [...theirs].sort().join(',');
          if (a !== b) problems.push(`${key}: uses {${a}} where English uses {${b}}`);
          if (tags(text) !== tags(source)) problems.push(`${key}: HTML tags differ from English`);
          if (!text.trim()) problems.push(`${key}: empty`);
        }
        expect(problems).toEqual([]);
      });
    });
  }
});
