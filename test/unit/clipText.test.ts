import { describe, expect, it } from 'vitest';
import { clipText, textLength } from '../../src/domain/text.js';

const FAMILY = '👩‍👩‍👧‍👦'; // 7 code points, 11 UTF-16 units, one grapheme
const E_ACUTE = 'e\u0301'; // e + combining acute: 2 code points, one grapheme
const FLAG = '🇫🇷'; // two regional indicators, one grapheme
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A cut that kept whole clusters leaves a prefix whose clusters are all clusters of the original. */
function graphemes(text: string): string[] {
  return [...new Intl.Segmenter('en', { granularity: 'grapheme' }).segment(text)].map((s) => s.segment);
}
function expectWholeClusters(clipped: string, original: string) {
  expect(original.startsWith(clipped)).toBe(true);
  expect(LONE_SURROGATE.test(clipped)).toBe(false);
  const kept = graphemes(clipped);
  expect(kept).toEqual(graphemes(original).slice(0, kept.length));
}

describe('clipText: shortening by grapheme clusters', () => {
  it('leaves text within the limit alone', () => {
    expect(clipText('hello', 5)).toBe('hello');
    // 30 family emoji are 210 code points: within 300 code points, though 330 UTF-16 units.
    expect(clipText(FAMILY.repeat(30), 210)).toBe(FAMILY.repeat(30));
  });

  it('never cuts a surrogate pair, a ZWJ sequence, a combining mark or a flag', () => {
    for (const unit of ['a', FAMILY, E_ACUTE, FLAG, '😀']) {
      const text = `ok ${unit.repeat(40)}`;
      for (let max = 1; max < 60; max++) {
        const clipped = clipText(text, max);
        expect(textLength(clipped)).toBeLessThanOrEqual(max);
        expectWholeClusters(clipped, text);
        // As much as fits: one more cluster would have gone over.
        const next = graphemes(text)[graphemes(clipped).length];
        if (next !== undefined) expect(textLength(clipped) + textLength(next)).toBeGreaterThan(max);
        else expect(clipped).toBe(text);
      }
    }
  });

  it('the issue’s file name: "ok " and 30 family emoji, cut to 200', () => {
    const name = `ok ${FAMILY.repeat(30)}`;
    const clipped = clipText(name, 200);
    expect(clipped).toBe(`ok ${FAMILY.repeat(28)}`); // 3 + 28 x 7 = 199 code points
    expect(() => encodeURIComponent(clipped)).not.toThrow();
  });

  it('counts UTF-16 units when asked (Telegram’s limits) and adds the ellipsis within the limit', () => {
    const text = FAMILY.repeat(10);
    const clipped = clipText(text, 40, { unit: 'utf16', ellipsis: '…' });
    expect(clipped).toBe(`${FAMILY.repeat(3)}…`);
    expect(clipped.length).toBeLessThanOrEqual(40);
    expect(clipText('abcdef', 4, { ellipsis: '…' })).toBe('abc…');
  });

  it('a single cluster longer than the limit is cut between code points: bounded and well formed', () => {
    const zalgo = `Z${'\u0301\u0316'.repeat(500)}😀`;
    const clipped = clipText(zalgo, 10);
    expect(textLength(clipped)).toBe(10);
    expect(zalgo.startsWith(clipped)).toBe(true);
    expect(LONE_SURROGATE.test(clipText('😀😀', 1, { unit: 'utf16' }))).toBe(false);
  });
});
