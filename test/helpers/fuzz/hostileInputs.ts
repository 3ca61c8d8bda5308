import fc from 'fast-check';

/**
 * The hostile inputs the fuzzer sends, by class. Each is something a client can really send and
 * that once broke (or could break) a service like this one: text PostgreSQL cannot store, text
 * that looks empty but is not, numbers past 64 bits, JSON of the wrong shape, broken multipart.
 */

/** Every C0 control, DEL, the line/paragraph separators, a lone surrogate pair half, invisible marks. */
export const CONTROL_CHARS: string[] = [
  ...Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)),
  '\u007f',
  '\u2028',
  '\u2029',
  '\ud800',
  '\udfff',
  '\u200b',
  '\ufeff',
];

/** U+0000 is the one PostgreSQL refuses outright, so it is sent to every field on its own too. */
export const NUL = '\u0000';

/** `text` with `char` put somewhere inside it (start, middle or end, by `where`). */
export function withChar(text: string, char: string, where: number): string {
  const at = Math.abs(where) % (text.length + 1);
  return text.slice(0, at) + char + text.slice(at);
}

/**
 * Percent-encoding for URLs that also covers lone surrogates (encodeURIComponent throws on them):
 * they go as their WTF-8 bytes, which are not valid UTF-8, exactly what a hostile client sends.
 */
export function percentEncode(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) {
      const bytes = [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)];
      out += bytes.map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    } else out += encodeURIComponent(char);
  }
  return out;
}

/** Text with one hostile character in it. */
export const hostileText = (base = 'text'): fc.Arbitrary<string> =>
  fc.tuple(fc.constantFrom(...CONTROL_CHARS), fc.nat()).map(([char, where]) => withChar(base, char, where));

/** Values of the wrong JSON type for any field. */
export const WRONG_TYPES: unknown[] = [123, -1, 1.5, true, false, null, {}, [], ['x'], { a: 1 }, '', 'x'];

/** Numbers at and past every boundary a 64-bit integer column or a float has. */
export const HUGE_NUMBERS: unknown[] = [
  0,
  -0,
  -1,
  -1e-9,
  1e-10,
  2 ** 31,
  2 ** 53 + 1,
  2 ** 63,
  -(2 ** 63),
  1e308,
  Number.MAX_VALUE,
  '9223372036854775808',
  '99999999999999999999999999999999',
  '-1',
  '0.0000000001',
  '1e9',
  'NaN',
  'Infinity',
];

/** Strings at, just past and far past a length bound (and the blank ones). */
export function boundaryStrings(minLength: number | undefined, maxLength: number | undefined): string[] {
  const out = ['', ' ', '\t\n', '\u200b\u200d\ufeff'];
  if (minLength) out.push('a'.repeat(minLength - 1), 'a'.repeat(minLength));
  if (maxLength !== undefined)
    out.push('a'.repeat(maxLength), 'a'.repeat(maxLength + 1), 'é'.repeat(maxLength + 1));
  out.push('a'.repeat(20_000));
  return out;
}

/** Whole bodies of the wrong shape, as raw text (some are not JSON at all). */
export const WRONG_BODIES: string[] = [
  'null',
  '[]',
  '[{}]',
  '"a string"',
  '42',
  'true',
  '',
  '{',
  '{"a":',
  '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}',
  `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`,
  '\u0000',
  '\ufeff{}',
];

/** Content types a JSON route may be sent, with a JSON body. */
export const CONTENT_TYPES: string[] = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json;;;',
  'APPLICATION/JSON',
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/vnd.api+json',
  '*/*',
  '',
];

/** Header values Node's HTTP client lets through: long, empty, Latin-1, tabs, odd syntax. */
const ODD_HEADER_VALUES: string[] = [
  '',
  ' ',
  'x',
  'a'.repeat(256),
  'a'.repeat(8000),
  'ÿé\u00a0',
  'a\tb',
  '-1',
  '99999999999999999999999',
  '../../etc/passwd',
  "'; drop table agents; --",
  '00000000-0000-0000-0000-000000000000',
];

/** Extra headers for one case: Idempotency-Key, X-Request-Id and Last-Event-ID with odd values. */
export const extraHeaders: fc.Arbitrary<Record<string, string>> = fc.record(
  {
    'idempotency-key': fc.oneof(fc.uuid(), fc.constantFrom(...ODD_HEADER_VALUES)),
    'x-request-id': fc.oneof(fc.constant('req-fuzz-1'), fc.constantFrom(...ODD_HEADER_VALUES)),
    'last-event-id': fc.oneof(fc.constant('msg_0'), fc.constantFrom(...ODD_HEADER_VALUES)),
  },
  { requiredKeys: [] },
);

/** One broken multipart request: its content type and raw body. */
export interface RawBody {
  name: string;
  contentType: string | undefined;
  body: string;
}

const part = (headers: string, content: string, boundary = 'fuzzB') =>
  `--${boundary}\r\n${headers}\r\n\r\n${content}\r\n`;
const filePart = (name = 'file', filename = 'a.txt') =>
  part(
    `Content-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: text/plain`,
    'hello',
  );

/**
 * Multipart that a client gets wrong: each entry is one class of mistake named in issue 13. The
 * upload routes must answer each with a 4xx that says what to send.
 */
export const BROKEN_MULTIPART: RawBody[] = [
  { name: 'no boundary', contentType: 'multipart/form-data', body: `${filePart()}--fuzzB--\r\n` },
  {
    name: 'empty boundary',
    contentType: 'multipart/form-data; boundary=',
    body: `${filePart()}--fuzzB--\r\n`,
  },
  { name: 'quoted empty boundary', contentType: 'multipart/form-data; boundary=""', body: 'x' },
  {
    name: 'boundary mismatch',
    contentType: 'multipart/form-data; boundary=other',
    body: `${filePart()}--fuzzB--\r\n`,
  },
  {
    name: 'truncated body',
    contentType: 'multipart/form-data; boundary=fuzzB',
    body: filePart().slice(0, 60),
  },
  { name: 'no closing boundary', contentType: 'multipart/form-data; boundary=fuzzB', body: filePart() },
  {
    name: 'missing content-disposition',
    contentType: 'multipart/form-data; boundary=fuzzB',
    body: `${part('Content-Type: text/plain', 'hello')}--fuzzB--\r\n`,
  },
  {
    name: 'broken content-disposition',
    contentType: 'multipart/form-data; boundary=fuzzB',
    body: `${part('Content-Disposition: ;;;=\u0000', 'hello')}--fuzzB--\r\n`,
  },
  {
    name: 'part not named "file"',
    contentType: 'multipart/form-data; boundary=fuzzB',
    body: `${filePart('document')}--fuzzB--\r\n`,
  },
  {
    name: 'a field and no file',
    contentType: 'multipart/form-data; boundary=fuzzB',
    body: `${part('Content-Disposition: form-data; name="file"', 'just text')}--fuzzB--\r\n`,
  },
  {
    name: 'two files',
    contentType: 'multipart/form-data; boundary=fuzzB',
    body: `${filePart()}${filePart('file', 'b.txt')}--fuzzB--\r\n`,
  },
  {
    name: 'control characters in the file name',
    contentType: 'multipart/form-data; boundary=fuzzB',
    body: `${filePart('file', 'a\u0001\u0000b\u202e.txt')}--fuzzB--\r\n`,
  },
  { name: 'empty multipart', contentType: 'multipart/form-data; boundary=fuzzB', body: '--fuzzB--\r\n' },
  { name: 'empty body', contentType: 'multipart/form-data; boundary=fuzzB', body: '' },
  { name: 'text/plain body', contentType: 'text/plain', body: 'hello' },
  {
    name: 'multipart type with a JSON body',
    contentType: 'multipart/form-data; boundary=fuzzB',
    body: '{"filename":"a"}',
  },
  {
    name: 'mixed instead of form-data',
    contentType: 'multipart/mixed; boundary=fuzzB',
    body: `${filePart()}--fuzzB--\r\n`,
  },
  { name: 'no content type', contentType: undefined, body: `${filePart()}--fuzzB--\r\n` },
];
