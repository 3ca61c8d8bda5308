import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeCursor,
  decodePosition,
  encodeCursor,
  MAX_CURSOR_NUMBER,
  page,
  positionCursor,
} from '../../src/domain/cursor.js';
import { DomainError } from '../../src/domain/errors.js';

const b64 = (text: string) => Buffer.from(text).toString('base64url');

function expectCursorError(fn: () => unknown) {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(DomainError);
  const error = caught as DomainError;
  expect(error.kind).toBe('validation');
  expect(error.message).toBe('Validation failed');
  expect(error.extra).toEqual({ details: [{ path: 'cursor', message: expect.any(String) }] });
}

describe('cursors', () => {
  it('no cursor is the first page', () => {
    expect(decodeCursor(undefined, ['string'])).toBeNull();
    expect(decodeCursor('', ['string'])).toBeNull();
    expect(decodePosition(undefined)).toBeNull();
  });

  it('round-trips what it encodes', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 100, unit: 'grapheme-ascii' }),
        fc.nat(MAX_CURSOR_NUMBER),
        (s, n) => {
          expect(decodeCursor(encodeCursor([s, n]), ['string', 'number'])).toEqual([s, n]);
        },
      ),
    );
    const row = { created_at: '2030-01-01T00:00:00.000Z', id: 'tsk_01abc' };
    expect(decodePosition(positionCursor(row))).toEqual({ createdAt: row.created_at, id: row.id });
  });

  it('is opaque: URL-safe, no padding', () => {
    const cursor = positionCursor({ created_at: '2030-01-01T00:00:00.000Z', id: 'tsk_???>>>' });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it.each([
    ['not base64 json', 'not-a-cursor'],
    ['garbage characters', '!!!@@@'],
    ['json that is not an array', b64('{"a":1}')],
    ['a number', b64('42')],
    ['null', b64('null')],
    ['too few values', b64('["2030-01-01T00:00:00.000Z"]')],
    ['too many values', b64('["a","b","c"]')],
    ['wrong types', b64('[1,2]')],
    ['a nested value', b64('[["a"],"b"]')],
    ['an over-long string', b64(JSON.stringify(['x'.repeat(101), 'y']))],
    ['truncated json', b64('["a","b"')],
  ])('refuses %s with a validation error on cursor', (_name, cursor) => {
    expectCursorError(() => decodePosition(cursor));
  });

  it.each([
    ['U+0000 in a string', b64(JSON.stringify(['2030-01-01T00:00:00.000Z', 'tsk_\u0000']))],
    ['a control character in a string', b64(JSON.stringify(['2030-01-01\n', 'tsk_x']))],
    ['non-ASCII text', b64(JSON.stringify(['2030-01-01', 'tsk_é']))],
  ])('refuses %s (a decoded cursor is input like any other)', (_name, cursor) => {
    expectCursorError(() => decodePosition(cursor));
  });

  it.each([
    ['1e300', '1e300'],
    ['a fraction', '1.5'],
    ['a negative count', '-1'],
    ['past a 32-bit count', String(MAX_CURSOR_NUMBER + 1)],
    ['past 2^53', '9007199254740993'],
  ])('refuses a number that is %s', (_name, number) => {
    expectCursorError(() =>
      decodeCursor(b64(`[${number},"2030-01-01","wrk_x"]`), ['number', 'string', 'string']),
    );
  });

  it('takes the largest count a cursor may carry', () => {
    const cursor = encodeCursor([MAX_CURSOR_NUMBER, '2030-01-01', 'wrk_x']);
    expect(decodeCursor(cursor, ['number', 'string', 'string'])).toEqual([
      MAX_CURSOR_NUMBER,
      '2030-01-01',
      'wrk_x',
    ]);
  });

  it('refuses a cursor of another shape (a catalog cursor on a list)', () => {
    expectCursorError(() => decodeCursor(encodeCursor([3, '2030-01-01', 'wrk_x']), ['string', 'string']));
  });

  it('refuses random strings (never a silent restart)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 60 }), (s) => {
        let result: unknown;
        try {
          result = decodePosition(s);
        } catch (error) {
          expect(error).toBeInstanceOf(DomainError);
          return;
        }
        // Only a string that happens to decode to two short strings gets through.
        expect(result).toEqual({ createdAt: expect.any(String), id: expect.any(String) });
      }),
    );
  });
});

describe('page', () => {
  const rows = Array.from({ length: 5 }, (_, i) => ({ created_at: `2030-01-0${i + 1}`, id: `id${i}` }));

  it('with one extra row: hasMore and the cursor of the last item shown', () => {
    const result = page(rows.slice(0, 4), 3, positionCursor);
    expect(result.items).toEqual(rows.slice(0, 3));
    expect(result.hasMore).toBe(true);
    expect(decodePosition(result.nextCursor!)).toEqual({ createdAt: rows[2]!.created_at, id: 'id2' });
  });

  it('the last page has a null cursor', () => {
    expect(page(rows.slice(0, 3), 3, positionCursor)).toEqual({
      items: rows.slice(0, 3),
      hasMore: false,
      nextCursor: null,
    });
    expect(page([], 3, positionCursor)).toEqual({ items: [], hasMore: false, nextCursor: null });
  });
});
