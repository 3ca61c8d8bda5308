import { describe, expect, it } from 'vitest';
import { amountText } from '../../src/domain/money/currency.js';
import {
  decimalOfUnits,
  formatDecimal,
  formatMoney,
  formatMoneyUnits,
  localizeDecimal,
} from '../../src/shared/money.js';

const NB = '\u00a0';

describe('the one money formatter (src/shared/money.ts)', () => {
  it('writes both currencies by the same rule: exact, trailing zeros dropped, the currency after a no-break space', () => {
    expect(formatMoney('6.5', 'TON', 'en')).toBe(`6.5${NB}TON`);
    expect(formatMoney('6.5', 'USDT', 'en')).toBe(`6.5${NB}USDT`);
    expect(formatMoney('43.50', 'USDT', 'en')).toBe(`43.5${NB}USDT`);
    expect(formatMoney('3.000000000', 'TON', 'en')).toBe(`3${NB}TON`);
  });

  it('shows zero the same way in both currencies and both languages', () => {
    for (const zero of ['0', '0.00', '0.000000000', '-0']) {
      expect(formatMoney(zero, 'TON', 'en')).toBe(`0${NB}TON`);
      expect(formatMoney(zero, 'USDT', 'ru')).toBe(`0${NB}USDT`);
    }
    expect(formatMoneyUnits(0n, 'TON', 'ru')).toBe(`0${NB}TON`);
  });

  it('keeps all 9 decimals of TON and all 6 of USDT, never rounding', () => {
    expect(formatMoney('0.000000001', 'TON', 'en')).toBe(`0.000000001${NB}TON`);
    expect(formatMoney('0.000001', 'USDT', 'en')).toBe(`0.000001${NB}USDT`);
    expect(formatMoneyUnits(1n, 'TON', 'en')).toBe(`0.000000001${NB}TON`);
    expect(formatMoneyUnits(1n, 'USDT', 'en')).toBe(`0.000001${NB}USDT`);
    expect(formatMoneyUnits(123_456_789_123_456_789n, 'TON', 'en')).toBe(`123,456,789.123456789${NB}TON`);
    expect(formatMoneyUnits(999_999_999_999n, 'USDT', 'ru')).toBe(`999${NB}999,999999${NB}USDT`);
  });

  it('keeps every digit of amounts past 2^53 smallest units, where a float would round', () => {
    const past = 2n ** 53n + 1n; // 9,007,199,254,740,993: Number() would make it ...992
    expect(formatMoneyUnits(past, 'USDT', 'en')).toBe(`9,007,199,254.740993${NB}USDT`);
    expect(formatMoneyUnits(past, 'TON', 'ru')).toBe(`9${NB}007${NB}199,254740993${NB}TON`);
    expect(formatMoneyUnits(-past, 'TON', 'en')).toBe(`-9,007,199.254740993${NB}TON`);
  });

  it('groups large amounts and writes the decimal mark as the reader’s language does', () => {
    expect(formatMoney('1234567.5', 'TON', 'en')).toBe(`1,234,567.5${NB}TON`);
    expect(formatMoney('1234567.5', 'TON', 'ru')).toBe(`1${NB}234${NB}567,5${NB}TON`);
    expect(formatMoney('1000000', 'USDT', 'en')).toBe(`1,000,000${NB}USDT`);
    expect(formatMoney('1000000', 'USDT', 'ru')).toBe(`1${NB}000${NB}000${NB}USDT`);
    expect(formatMoney('1250.25', 'USDT', 'ru')).toBe(`1${NB}250,25${NB}USDT`);
  });

  it('keeps a sign, shows "—" for no amount, and leaves what is not an amount as it came', () => {
    expect(formatMoney('-2.50', 'TON', 'en')).toBe(`-2.5${NB}TON`);
    expect(formatMoney(null, 'TON', 'en')).toBe('—');
    expect(formatMoney(undefined, 'USDT', 'ru')).toBe('—');
    expect(formatMoney('', 'USDT', 'en')).toBe('—');
    expect(formatDecimal('n/a', 'ru')).toBe('n/a');
    expect(formatMoney('1234', 'TON', 'not a language tag!')).toBe(`1,234${NB}TON`);
  });

  it('turns smallest units into exact decimal strings', () => {
    expect(decimalOfUnits(6_500_000_000n, 'TON')).toBe('6.5');
    expect(decimalOfUnits(6_500_000n, 'USDT')).toBe('6.5');
    expect(decimalOfUnits(-1n, 'USDT')).toBe('-0.000001');
  });

  it('is what the API’s sentences use', () => {
    expect(amountText('TON', 1_000_000n * 10n ** 9n)).toBe(`1,000,000${NB}TON`);
    expect(amountText('USDT', 10_000n)).toBe(`0.01${NB}USDT`);
  });
});

describe('localizeDecimal: numbers that are not money keep every digit', () => {
  it('groups and marks decimals per language without dropping zeros', () => {
    expect(localizeDecimal('4.0', 'en')).toBe('4.0');
    expect(localizeDecimal('1234.50', 'ru')).toBe(`1${NB}234,50`);
  });
});
