/**
 * How deep a JSON body may nest. No request nests deeper than about 8 (a JSON-RPC batch holding
 * a tool call's arguments); 32 leaves room, and every recursive reader behind the parser (schema
 * validators, the MCP SDK's message schemas, structuredClone) stays far from the stack's end.
 * 26 MB of nested arrays once made /mcp answer "Maximum call stack size exceeded" after blocking
 * the process for 53 s.
 */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether JSON text opens more than `limit` arrays or objects inside one another: one pass, no
 * recursion, stopping at the first container too deep, so refusing a deep body costs less than
 * parsing it. Brackets inside strings do not count. Text that is not JSON gives some answer and
 * is then refused by the parser anyway.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  // Each level opens with a bracket: text with no more brackets than the limit (nearly every
  // body) cannot be too deep, and indexOf finds the few brackets it has far faster than a loop.
  if (bracketsAtMost(text, limit)) return false;
  let depth = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Jump to the closing quote: one not preceded by an odd run of backslashes.
      for (;;) {
        const next = text.indexOf('"', i + 1);
        if (next < 0) return false;
        i = next;
        let slashes = 0;
        while (text.charCodeAt(i - 1 - slashes) === BACKSLASH) slashes++;
        if ((slashes & 1) === 0) break;
      }
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

/** Whether `text` holds at most `limit` of [ and { together (in strings too). */
function bracketsAtMost(text: string, limit: number): boolean {
  let count = 0;
  for (let i = text.indexOf('{'); i >= 0; i = text.indexOf('{', i + 1)) if (++count > limit) return false;
  for (let i = text.indexOf('['); i >= 0; i = text.indexOf('[', i + 1)) if (++count > limit) return false;
  return true;
}
