/**
 * The Mini App's translation files (web/miniapp/src/locales/*.json) stay usable by translators:
 * every language has every message English has and nothing else, each message is valid ICU, and
 * a translation uses the same placeholders as the English message (a missing {amount} would
 * silently drop the reward from a sentence).
 */
import path from 'node:path';
import { parse } from '@formatjs/icu-messageformat-parser';
import { describe, expect, it } from 'vitest';
import { placeholders, readLocales } from '../helpers/icuLocales.js';

const DIR = path.resolve(import.meta.dirname, '../../web/miniapp/src/locales');

const languages = readLocales(DIR);
const english = languages.find((l) => l.code === 'en')?.messages ?? new Map<string, string>();

describe('Mini App translations', () => {
  it('has English and at least one other language', () => {
    expect(english.size).toBeGreaterThan(0);
    expect(languages.map((l) => l.code)).toContain('ru');
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

      it('writes each message in valid ICU with the English placeholders', () => {
        const problems: string[] = [];
        for (const [key, text] of messages) {
          let mine: Set<string>;
          try {
            mine = placeholders(parse(text));
          } catch (error) {
            problems.push(`${key}: ${(error as Error).message}`);
            continue;
          }
          const theirs = placeholders(parse(english.get(key) ?? ''));
          const a = [...mine].sort().join(',');
          const b = [...theirs].sort().join(',');
          if (a !== b) problems.push(`${key}: uses {${a}} where English uses {${b}}`);
          if (!text.trim()) problems.push(`${key}: empty`);
        }
        expect(problems).toEqual([]);
      });
    });
  }
});
