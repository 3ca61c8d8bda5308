import { readFileSync } from 'node:fs';

/**
 * The screening rules file (docs/decisions/screening.md): one JSON document an operator edits and
 * reloads (POST /admin/screening/reload). Every pattern is checked here before it is compiled, so
 * that no rule can make matching slow on hostile text: no unbounded or nested repetition, no
 * back-references or look-arounds, nothing but letters, digits, spaces, groups, classes and
 * bounded repeats. A file that breaks any check is refused whole, and the rules in force stay.
 */

export const SCREENING_CATEGORIES = [
  'harm_or_surveillance',
  'security_reconnaissance',
  'weapons_and_drugs',
  'sexual_content',
  'fraud_and_fake_reviews',
  'personal_data_collection',
  'impersonation',
  'dangerous_acts',
] as const;
export type ScreeningCategory = (typeof SCREENING_CATEGORIES)[number];
export type ScreeningAction = 'refuse' | 'hold';

export interface ScreeningRule {
  id: string;
  /** Shown to the agent in a refusal and to operators: says what the policy forbids. */
  name: string;
  category: ScreeningCategory;
  action: ScreeningAction;
  /** One regular expression per rule: its patterns as alternatives, each at a word start. */
  regex: RegExp;
}

export interface RuleSet {
  version: string;
  rules: ScreeningRule[];
  /** Every rule's patterns in one expression: most tasks match nothing, and one pass says so. */
  any: RegExp | null;
}

const MAX_RULES = 200;
const MAX_PATTERNS_PER_RULE = 100;
const MAX_PATTERN_LENGTH = 600;
const MAX_REPEAT = 30;
/** `~` in a pattern: the rest of this word, then at most this many whole words, then the next word. */
const GAP_WORDS = 3;
const WORD_CHARS = 40;
const GAP = `[^ ]{0,${WORD_CHARS}} (?:[^ ]{1,${WORD_CHARS}} ){0,${GAP_WORDS}}`;
const ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** Reads and compiles the rules file; throws an Error whose message says what to fix. */
export function loadRulesFile(path: string): RuleSet {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the screening rules file ${path}: ${(error as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new Error(`the screening rules file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  return compileRules(data);
}

export function compileRules(data: unknown): RuleSet {
  const doc = data as { version?: unknown; rules?: unknown };
  if (!doc || typeof doc !== 'object' || !Array.isArray(doc.rules)) {
    throw new Error('the screening rules file must be an object with a "rules" array');
  }
  if (doc.rules.length > MAX_RULES) throw new Error(`at most ${MAX_RULES} rules`);
  const seen = new Set<string>();
  const rules: ScreeningRule[] = [];
  const sources: string[] = [];
  for (const [index, raw] of doc.rules.entries()) {
    const rule = compileRule(raw, index);
    if (seen.has(rule.rule.id)) throw new Error(`rule ${rule.rule.id} appears twice`);
    seen.add(rule.rule.id);
    rules.push(rule.rule);
    sources.push(rule.source);
  }
  // Refusals first: when a text matches both kinds, the stronger one decides (screening.ts).
  rules.sort((a, b) => (a.action === b.action ? 0 : a.action === 'refuse' ? -1 : 1));
  return {
    version: typeof doc.version === 'string' ? doc.version.slice(0, 100) : 'unversioned',
    rules,
    any: sources.length ? new RegExp(` (?:${sources.join('|')})`, 'u') : null,
  };
}

function compileRule(raw: unknown, index: number): { rule: ScreeningRule; source: string } {
  const r = raw as Record<string, unknown>;
  const where = `rule ${index + 1}`;
  if (!r || typeof r !== 'object') throw new Error(`${where} must be an object`);
  if (typeof r.id !== 'string' || !ID_PATTERN.test(r.id)) {
    throw new Error(`${where}: "id" must be 1-63 characters of a-z, 0-9 and -`);
  }
  const at = `rule ${r.id}`;
  if (typeof r.name !== 'string' || r.name.length < 3 || r.name.length > 200) {
    throw new Error(`${at}: "name" must be 3-200 characters (it is shown to agents)`);
  }
  if (!SCREENING_CATEGORIES.includes(r.category as ScreeningCategory)) {
    throw new Error(`${at}: "category" must be one of ${SCREENING_CATEGORIES.join(', ')}`);
  }
  if (r.action !== 'refuse' && r.action !== 'hold') throw new Error(`${at}: "action" must be refuse or hold`);
  const patterns = r.patterns;
  if (!Array.isArray(patterns) || patterns.length === 0 || patterns.length > MAX_PATTERNS_PER_RULE) {
    throw new Error(`${at}: "patterns" must be a list of 1-${MAX_PATTERNS_PER_RULE} patterns`);
  }
  const compiled = patterns.map((p, i) => compilePattern(p, `${at}, pattern ${i + 1}`));
  const source = `(?:${compiled.join('|')})`;
  return {
    rule: {
      id: r.id,
      name: r.name,
      category: r.category as ScreeningCategory,
      action: r.action,
      regex: new RegExp(` ${source}`, 'u'),
    },
    source,
  };
}

/**
 * Checks one pattern and turns it into a regular expression source. The language, on text
 * normalized by screening.ts (lower case, words separated by single spaces): letters, digits and
 * spaces match themselves; `(a|b)` and `[abc]` as usual; `?` and `{m,n}` (n at most 30) repeat
 * what precedes them, but never a group that repeats something inside; `~` skips the rest of the
 * word and up to three words. A pattern matches from a word's start, so `follow` also finds
 * `following`; end it with a space to match whole words only.
 */
export function compilePattern(raw: unknown, where: string): string {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_PATTERN_LENGTH) {
    throw new Error(`${where}: must be 1-${MAX_PATTERN_LENGTH} characters`);
  }
  if (raw !== raw.toLowerCase())
    throw new Error(`${where}: must be lower case (text is matched in lower case)`);
  // A stack of open groups: whether each contains a repeat, so the group itself may not repeat.
  const groups: boolean[] = [];
  let out = '';
  let lastAtom: 'none' | 'char' | 'group-plain' | 'group-repeating' = 'none';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '(') {
      if (raw[i + 1] === '?') {
        if (raw[i + 2] !== ':') throw new Error(`${where}: look-arounds and named groups are not allowed`);
        i += 2;
      }
      groups.push(false);
      out += '(?:';
      lastAtom = 'none';
    } else if (c === ')') {
      const repeating = groups.pop();
      if (repeating === undefined) throw new Error(`${where}: a ")" without its "("`);
      if (repeating && groups.length) groups[groups.length - 1] = true;
      out += ')';
      lastAtom = repeating ? 'group-repeating' : 'group-plain';
    } else if (c === '|') {
      out += '|';
      lastAtom = 'none';
    } else if (c === '[') {
      const end = raw.indexOf(']', i + 1);
      const body = end < 0 ? '' : raw.slice(i + 1, end);
      if (!/^\^?[\p{L}\p{N} -]+$/u.test(body)) {
        throw new Error(`${where}: a class [...] may hold only letters, digits, spaces and ranges`);
      }
      out += `[${body}]`;
      i = end;
      lastAtom = 'char';
    } else if (c === '?' || c === '{') {
      let quantifier = '?';
      if (c === '{') {
        const m = /^\{(\d{1,2}),(\d{1,2})\}/.exec(raw.slice(i));
        if (!m || Number(m[1]) > Number(m[2]) || Number(m[2]) > MAX_REPEAT) {
          throw new Error(`${where}: a repeat must read {m,n} with m <= n <= ${MAX_REPEAT}`);
        }
        quantifier = m[0];
        i += m[0].length - 1;
      }
      if (lastAtom === 'none') throw new Error(`${where}: "${c}" must follow a letter, a class or a group`);
      if (lastAtom === 'group-repeating') throw new Error(`${where}: a repeated group may not repeat inside`);
      out += quantifier;
      if (groups.length) groups[groups.length - 1] = true;
      lastAtom = 'none';
    } else if (c === '~') {
      out += GAP;
      if (groups.length) groups[groups.length - 1] = true;
      lastAtom = 'none';
    } else if (/^[\p{L}\p{N} ]$/u.test(c)) {
      out += c;
      lastAtom = 'char';
    } else {
      throw new Error(`${where}: "${c}" is not allowed (letters, digits, spaces, ( | ) [ ] ? {m,n} ~)`);
    }
  }
  if (groups.length) throw new Error(`${where}: a "(" without its ")"`);
  return out;
}
