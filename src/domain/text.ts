/**
 * Length in characters (Unicode code points), the way the request schemas count `maxLength`;
 * `string.length` counts UTF-16 units, so an emoji would count twice.
 */
export function textLength(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}

/**
 * Characters that show nothing: zero-width space, joiners, word joiner, BOM, Mongolian vowel
 * separator, soft hyphen, and NUL. Text made only of these and white space is blank.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is one of the invisible characters
const INVISIBLE = /[\u0000\u00ad\u180e\u200b-\u200d\u2060\ufeff]/g;

/** True when the text shows nothing: only white space and invisible characters. */
export function isBlank(value: string): boolean {
  return value.replace(INVISIBLE, '').trim() === '';
}

/**
 * Text that reaches us from Telegram (init data) cannot be refused like a caller's input: a
 * worker whose name holds U+0000 could then never sign in. NUL and the other C0 control
 * characters are removed instead (PostgreSQL cannot store NUL; the others are never meant).
 */
export function withoutControlCharacters(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  return value.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
}

/** Grapheme clusters: what a reader sees as one character (👩‍👩‍👧‍👦, é made of e + U+0301, 🇫🇷). */
const GRAPHEMES = new Intl.Segmenter('en', { granularity: 'grapheme' });

export interface ClipOptions {
  /** Added after a shortened text (and counted in `max`), e.g. '…'; nothing by default. */
  ellipsis?: string;
  /**
   * How `max` counts: code points (the request schemas' `maxLength`, the default), or UTF-16
   * units (Telegram's limits).
   */
  unit?: 'codePoint' | 'utf16';
}

const utf16Length = (value: string) => value.length;

/**
 * `value` shortened to at most `max` characters, cut between grapheme clusters. Every place that
 * shortens text a person typed goes through here: `slice` counts UTF-16 units, so it could cut a
 * surrogate pair in half (a lone surrogate, which encodeURIComponent throws on and UTF-8 cannot
 * hold) or split a family emoji or an accent from its letter. A cluster longer than `max` on its
 * own (a letter under hundreds of combining marks) is cut between code points instead, so the
 * result stays bounded and valid Unicode. Only the kept part is segmented: the cost is bounded
 * by `max`, not by the length of `value`.
 */
export function clipText(value: string, max: number, options: ClipOptions = {}): string {
  const measure = options.unit === 'utf16' ? utf16Length : textLength;
  // UTF-16 length is never below the code point count: most texts end here, unsegmented.
  if (value.length <= max || measure(value) <= max) return value;
  let ellipsis = options.ellipsis ?? '';
  if (measure(ellipsis) >= max) ellipsis = '';
  const budget = max - measure(ellipsis);
  let used = 0;
  let end = 0;
  for (const { segment, index } of GRAPHEMES.segment(value)) {
    const size = measure(segment);
    if (used + size > budget) {
      if (end === 0) end = codePointsWithin(segment, budget, measure);
      break;
    }
    used += size;
    end = index + segment.length;
  }
  return value.slice(0, end) + ellipsis;
}

/** The UTF-16 length of the longest run of whole code points at the start of `text` within `budget`. */
function codePointsWithin(text: string, budget: number, measure: (s: string) => number): number {
  let used = 0;
  let end = 0;
  for (const ch of text) {
    used += measure(ch);
    if (used > budget) break;
    end += ch.length;
  }
  return end;
}
