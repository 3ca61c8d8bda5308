/**
 * How deep a JSON body may nest. No request nests deeper than about 8 (a JSON-RPC batch holding
 * a tool call's arguments); 32 leaves room, and every recursive reader behind the parser (schema
 * validators, the MCP SDK's message schemas, structuredClone) stays far from the stack's end.
 * 26 MB of nested arrays once made /mcp answer "Maximum call stack size exceeded" after blocking
 * the process for 53 s.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * How many keys one JSON object may hold. The widest object a request has is a task body (about
 * 15 fields) or a short map such as a worker's social links; 1,000 leaves room. An 832 KiB object
 * of 100,000 keys once cost 0.6-0.75 s of CPU per request on the unauthenticated sign-in route
 * (the parse, the text guard's walk and Ajv removing the unknown keys, each linear in the keys).
 */
export const MAX_JSON_OBJECT_KEYS = 1000;

/**
 * How many keys a whole JSON body may hold. The largest request, a batch of 500 task bodies,
 * has under 10,000; narrow objects by the thousand cost what one wide object does.
 */
export const MAX_JSON_KEYS = 50_000;

export type JsonShapeProblem = 'too deep' | 'too wide' | 'too many keys';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const COLON = 0x3a;
/** On the stack of open containers: an array (objects hold their count of keys so far). */
const ARRAY = -1;

/**
 * What is wrong with the shape of JSON text, before it is parsed: more than MAX_JSON_DEPTH
 * arrays and objects inside one another, an object with more than MAX_JSON_OBJECT_KEYS keys, or
 * more than MAX_JSON_KEYS keys in all; null when none. One pass over the text, no recursion,
 * stopping at the first problem, so refusing a body costs less than parsing it. A key is counted
 * by the colon after it; brackets and colons inside strings do not count. Text that is not JSON
 * gives some answer and is then refused by the parser anyway.
 */
export function jsonShapeProblem(text: string): JsonShapeProblem | null {
  // Each level opens with a bracket and each key has its colon: text with no more brackets and
  // colons than the limits (nearly every body) cannot be too deep or too wide, and indexOf
  // finds the few it has far faster than a loop.
  if (countsAtMost(text, ['{', '['], MAX_JSON_DEPTH) && countsAtMost(text, [':'], MAX_JSON_OBJECT_KEYS)) {
    return null;
  }
  // Keys so far of each open object (ARRAY for an open array), innermost last.
  const open: number[] = [];
  let keys = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Jump to the closing quote: one not preceded by an odd run of backslashes.
      for (;;) {
        const next = text.indexOf('"', i + 1);
        if (next < 0) return null;
        i = next;
        let slashes = 0;
        while (text.charCodeAt(i - 1 - slashes) === BACKSLASH) slashes++;
        if ((slashes & 1) === 0) break;
      }
    } else if (c === COLON) {
      if (++keys > MAX_JSON_KEYS) return 'too many keys';
      const last = open.length - 1;
      if (last >= 0 && open[last] !== ARRAY && ++open[last]! > MAX_JSON_OBJECT_KEYS) return 'too wide';
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (open.length >= MAX_JSON_DEPTH) return 'too deep';
      open.push(c === OPEN_ARRAY ? ARRAY : 0);
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      open.pop();
    }
  }
  return null;
}

/** Whether `text` holds at most `limit` of the given characters together (in strings too). */
function countsAtMost(text: string, characters: string[], limit: number): boolean {
  let count = 0;
  for (const character of characters) {
    for (let i = text.indexOf(character); i >= 0; i = text.indexOf(character, i + 1)) {
      if (++count > limit) return false;
    }
  }
  return true;
}
