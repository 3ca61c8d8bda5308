/**
 * Workers read the Mini App and the bot as one product, so one thing has one name in a language
 * in both (issue #36: «задача» and «задание» mixed, «Открыть спор» for opening and for viewing,
 * «Сдача» read as coins). The terms live in web/miniapp/src/locales/GLOSSARY.md for translators;
 * this test holds both apps' translation files to that table.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLocales } from '../helpers/icuLocales.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MINIAPP = readLocales(path.join(ROOT, 'web/miniapp/src/locales'));
const BOT = readLocales(path.join(ROOT, 'src/telegram/locales'));

type Term = { keys: string[]; byLanguage: Map<string, string[]>; never: Map<string, string[]> };

/** The glossary's table: columns "Keys", one per language code, and "never (<code>)". */
function readGlossary(): Term[] {
  const text = readFileSync(path.join(ROOT, 'web/miniapp/src/locales/GLOSSARY.md'), 'utf8');
  const rows = text
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );
  const [header, , ...body] = rows;
  if (!header) throw new Error('GLOSSARY.md has no table');
  const list = (cell: string | undefined) =>
    (cell ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  return body.map((cells) => {
    const term: Term = { keys: [], byLanguage: new Map(), never: new Map() };
    header.forEach((name, i) => {
      const never = /^never \((\w+)\)$/.exec(name);
      if (name === 'Keys') term.keys = list(cells[i]);
      else if (never?.[1]) term.never.set(never[1], list(cells[i]));
      else if (/^[a-z]{2}$/.test(name)) term.byLanguage.set(name, list(cells[i]));
    });
    return term;
  });
}

const glossary = readGlossary();

describe('the translators’ glossary', () => {
  it('lists terms for the languages both apps speak', () => {
    expect(glossary.length).toBeGreaterThan(3);
    for (const { code } of [...MINIAPP, ...BOT]) {
      expect(
        glossary.every((t) => t.byLanguage.has(code)),
        `a column for ${code}`,
      ).toBe(true);
    }
  });

  it('each listed key says exactly one of its term’s forms, in every language', () => {
    const wrong: string[] = [];
    for (const { code, messages } of MINIAPP) {
      for (const term of glossary) {
        const forms = term.byLanguage.get(code) ?? [];
        for (const key of term.keys) {
          const text = messages.get(key);
          if (text === undefined) wrong.push(`${code} ${key}: missing`);
          else if (!forms.includes(text)) wrong.push(`${code} ${key}: "${text}" is not ${forms.join(' / ')}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('no message in the Mini App or the bot uses a word the glossary rules out', () => {
    const found: string[] = [];
    for (const [app, languages] of [
      ['Mini App', MINIAPP],
      ['bot', BOT],
    ] as const) {
      for (const { code, messages } of languages) {
        const banned = glossary.flatMap((t) => t.never.get(code) ?? []);
        for (const [key, text] of messages) {
          for (const stem of banned) {
            if (text.toLowerCase().includes(stem.toLowerCase()))
              found.push(`${app} ${code} ${key}: "${stem}" in "${text}"`);
          }
        }
      }
    }
    expect(found).toEqual([]);
  });

  it('opening a dispute and viewing one are two different buttons', () => {
    for (const { code, messages } of MINIAPP) {
      expect(messages.get('task.viewDispute'), code).not.toBe(messages.get('task.openDispute'));
    }
  });
});
