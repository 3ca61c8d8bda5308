/**
 * Length in characters (Unicode code points), the way the request schemas count `maxLength`;
 * `string.length` counts UTF-16 units, so an emoji would count twice.
 */
export function textLength(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}
