import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AmountFormatError,
  formatTon,
  MAX_REWARD_NANO,
  MIN_REWARD_NANO,
  NANO_PER_TON,
  parseTon,
  platformFeeFor,
  taskCost,
} from '../../src/domain/money/money.js';

/** The JSON form of docs/decisions/tasks-and-money.md: digits, optional point and 1-9 digits ending in non-zero. */
const CANONICAL = /^(0|[1-9]\d*)(\.\d{0,8}[1-9])?$/;

describe('parseTon', () => {
  it.each([
    ['6.5', 6_500_000_000n],
    ['100', 100n * NANO_PER_TON],
    ['0.013', 13_000_000n],
    ['0', 0n],
    ['0.000000001', 1n],
    ['1.000000000', NANO_PER_TON],
    ['1000000', MAX_REWARD_NANO],
    ['0.01', MIN_REWARD_NANO],
    ['123456789.123456789', 123_456_789_123_456_789n],
    [' 2.5 ', 2_500_000_000n],
  ])('reads %j as %s nanotons', (input, nano) => {
    expect(parseTon(input)).toBe(nano);
  });

  it.each([
    [6.5, 6_500_000_000n],
    [100, 100n * NANO_PER_TON],
    [0.013, 13_000_000n],
    [1e-7, 100n],
    [1e-9, 1n],
    [0.1, 100_000_000n],
  ])('reads the JSON number %s through its shortest decimal form', (input, nano) => {
    expect(parseTon(input)).toBe(nano);
  });

  it.each([
    '1e3',
    '1E3',
    '-1',
    '+1',
    '1.0000000001',
    ' ',
    '',
    '.5',
    '5.',
    '00.5',
    '01',
    '1,5',
    '1 000',
    'abc',
    '0x10',
    'Infinity',
    'NaN',
    '١',
    '1.5.5',
  ])('refuses %j', (input) => {
    expect(() => parseTon(input)).toThrow(AmountFormatError);
  });

  it.each([-1, 1e-10, 0.1 + 0.2, Number.NaN, Number.POSITIVE_INFINITY, 1e21])(
    'refuses the JSON number %s',
    (input) => {
      expect(() => parseTon(input)).toThrow(AmountFormatError);
    },
  );

  it('never goes through a float: 18 significant digits survive', () => {
    expect(parseTon('999999999.999999999')).toBe(999_999_999_999_999_999n);
    expect(parseTon('9007199254.740993001')).toBe(9_007_199_254_740_993_001n);
  });
});

describe('formatTon', () => {
  it.each([
    [6_500_000_000n, '6.5'],
    [100n * NANO_PER_TON, '100'],
    [13_000_000n, '0.013'],
    [0n, '0'],
    [1n, '0.000000001'],
    [1_950_000_000n, '1.95'],
    [10n * NANO_PER_TON + 10n, '10.00000001'],
    [-1n, '-0.000000001'],
    [-6_500_000_000n, '-6.5'],
  ])('writes %s nanotons as %j', (nano, text) => {
    expect(formatTon(nano)).toBe(text);
  });

  it('round trip: parseTon(formatTon(x)) === x for nanotons 0..10^18', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 18n }), (x) => {
        const text = formatTon(x);
        expect(text).toMatch(CANONICAL);
        expect(parseTon(text)).toBe(x);
      }),
      { numRuns: 2000 },
    );
  });

  // Amounts up to 2^53 - 1 are formatted with number arithmetic, larger ones with BigInt.
  const byDigits = (x: bigint) => {
    const text = x.toString().padStart(10, '0');
    const fraction = text.slice(-9).replace(/0+$/, '');
    return `${text.slice(0, -9).replace(/^0+(?=.)/, '')}${fraction ? `.${fraction}` : ''}`;
  };
  const safe = BigInt(Number.MAX_SAFE_INTEGER);

  it.each([
    safe,
    safe - 1n,
    safe + 1n,
    (safe / NANO_PER_TON) * NANO_PER_TON,
    (safe / NANO_PER_TON) * NANO_PER_TON - 1n,
    999_999_999n,
    1_000_000_000n,
    8_999_999_999_999_999n,
  ])('writes %s nanotons digit for digit, near the largest exact double too', (nano) => {
    expect(formatTon(nano)).toBe(byDigits(nano));
  });

  it('writes every amount up to 2^53 digit for digit (the number arithmetic path)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: safe }), (x) => {
        expect(formatTon(x)).toBe(byDigits(x));
      }),
      { numRuns: 5000 },
    );
  });

  it('round trip: formatTon(parseTon(s)) is s without trailing zeros', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 12n }),
        fc.stringMatching(/^[0-9]{0,9}$/),
        (whole, fraction) => {
          const input = fraction ? `${whole}.${fraction}` : `${whole}`;
          const canonical = input.includes('.') ? input.replace(/0+$/, '').replace(/\.$/, '') : input;
          expect(formatTon(parseTon(input))).toBe(canonical);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('platformFeeFor', () => {
  /** 30% half-up, computed another way: with decimal strings, rounding on the tenths digit. */
  function referenceFee(reward: bigint): bigint {
    const tenths = (reward * 3n).toString(); // fee in tenths of a nanoton
    const whole = tenths.length > 1 ? BigInt(tenths.slice(0, -1)) : 0n;
    const lastDigit = Number(tenths.slice(-1));
    return lastDigit >= 5 ? whole + 1n : whole;
  }

  it.each([
    [10n * NANO_PER_TON, 3n * NANO_PER_TON],
    [6_500_000_000n, 1_950_000_000n],
    [MIN_REWARD_NANO, 3_000_000n],
    [1n, 0n], // 0.3 rounds down
    [2n, 1n], // 0.6 rounds up
    [5n, 2n], // 1.5: half rounds up
    [15n, 5n], // 4.5: half rounds up
    [25n, 8n], // 7.5 -> 8
    [0n, 0n],
  ])('fee of %s is %s', (reward, fee) => {
    expect(platformFeeFor(reward)).toBe(fee);
  });

  it('matches a half-up reference for random rewards', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: MAX_REWARD_NANO * 10n }), (reward) => {
        expect(platformFeeFor(reward)).toBe(referenceFee(reward));
      }),
      { numRuns: 5000 },
    );
  });

  it('is within half a nanoton of exactly 30%', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: MAX_REWARD_NANO }), (reward) => {
        const diffTimes10 = platformFeeFor(reward) * 10n - reward * 3n; // in tenths of a nanoton
        expect(diffTimes10 > -5n && diffTimes10 <= 5n).toBe(true);
      }),
    );
  });

  it('refuses a negative reward', () => {
    expect(() => platformFeeFor(-1n)).toThrow(RangeError);
  });

  it('taskCost: total = reward + fee', () => {
    expect(taskCost(6_500_000_000n)).toEqual({
      rewardNano: 6_500_000_000n,
      feeNano: 1_950_000_000n,
      totalNano: 8_450_000_000n,
    });
    fc.assert(
      fc.property(fc.bigInt({ min: MIN_REWARD_NANO, max: MAX_REWARD_NANO }), (reward) => {
        const cost = taskCost(reward);
        expect(cost.totalNano).toBe(cost.rewardNano + cost.feeNano);
        expect(cost.feeNano).toBe(platformFeeFor(reward));
      }),
    );
  });
});
