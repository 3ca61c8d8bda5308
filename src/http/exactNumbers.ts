/**
 * JSON.parse reads every number into a binary double and rounds without a word: a reward of
 * 1.0000000000000001 TON arrives as 1, and a deposit of 100000000.123456789 TON as
 * 100000000.12345679. Money must not be changed on the way in, so a body whose number literals
 * the parsed values do not hold exactly is refused, naming the field. A number is exact when
 * its shortest decimal form (what the money parser reads) has the value written in the body.
 */

const NUMBER = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y;

/** The first number literal of valid JSON text that parsing would round, with its field path. */
export function firstInexactNumber(text: string): { path: string; literal: string } | null {
  // Up to 15 significant digits without an exponent always survive a double; most bodies have
  // no longer digit run and no digit followed by an exponent, and need no scan.
  if (!/[\d.]{16}|\d[eE]/.test(text)) return null;
  const path: (string | number)[] = [];
  const containers: ('{' | '[')[] = [];
  let expectKey = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      const end = stringEnd(text, i);
      if (expectKey) {
        path[path.length - 1] = JSON.parse(text.slice(i, end)) as string;
        expectKey = false;
      }
      i = end;
    } else if (c === '{' || c === '[') {
      containers.push(c);
      path.push(c === '{' ? '' : 0);
      expectKey = c === '{';
      i++;
    } else if (c === '}' || c === ']') {
      containers.pop();
      path.pop();
      i++;
    } else if (c === ',') {
      const top = path.length - 1;
      if (containers[containers.length - 1] === '[') path[top] = (path[top] as number) + 1;
      else expectKey = true;
      i++;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      NUMBER.lastIndex = i;
      const literal = NUMBER.exec(text)![0];
      if (!isExact(literal)) return { path: path.join('/'), literal };
      i += literal.length;
    } else i++;
  }
  return null;
}

/** The index just past the closing quote of the string that starts at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') i += 2;
    else if (c === '"') return i + 1;
    else i++;
  }
  return i;
}

function isExact(literal: string): boolean {
  const value = Number(literal);
  return Number.isFinite(value) && decimalValue(String(value)) === decimalValue(literal);
}

/** A canonical spelling of a decimal's value: significant digits and a power of ten. */
function decimalValue(text: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!match) return text;
  const fraction = match[3] ?? '';
  let digits = (match[2]! + fraction).replace(/^0+/, '');
  let exponent = Number(match[4] ?? 0) - fraction.length;
  if (digits === '') return '0';
  while (digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    exponent++;
  }
  return `${match[1]}${digits}e${exponent}`;
}
