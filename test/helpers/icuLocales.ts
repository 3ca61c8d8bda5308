import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type MessageFormatElement, TYPE } from '@formatjs/icu-messageformat-parser';

/**
 * Reading translation files (nested JSON of ICU messages) for the tests that keep them usable by
 * translators: the Mini App's (web/miniapp/src/locales) and the bot's (src/telegram/locales).
 */

type Tree = { [key: string]: string | Tree };

/** Every message under its dotted key ("profile.title"). */
export function flatten(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const full = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(full, value);
    else for (const [k, v] of flatten(value, full)) out.set(k, v);
  }
  return out;
}

/** The names of a parsed message's placeholders, inside plurals, selects and tags too. */
export function placeholders(elements: MessageFormatElement[], into = new Set<string>()): Set<string> {
  for (const el of elements) {
    if (
      el.type === TYPE.argument ||
      el.type === TYPE.number ||
      el.type === TYPE.date ||
      el.type === TYPE.time
    ) {
      into.add(el.value);
    } else if (el.type === TYPE.plural || el.type === TYPE.select) {
      into.add(el.value);
      for (const option of Object.values(el.options)) placeholders(option.value, into);
    } else if (el.type === TYPE.tag) {
      placeholders(el.children, into);
    }
  }
  return into;
}

/** The language codes with a file in `dir` ("en" for en.json), sorted. */
export const localeCodes = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.replace(/\.json$/, ''))
    .sort();

/** Each language in `dir` with its messages, flattened. */
export const readLocales = (dir: string) =>
  localeCodes(dir).map((code) => ({
    code,
    messages: flatten(JSON.parse(readFileSync(path.join(dir, `${code}.json`), 'utf8'))),
  }));
