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
