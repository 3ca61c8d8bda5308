/** The Mini App's formatters: amounts keep every digit, words follow the language, times the zone. */
import { describe, expect, it } from 'vitest';
import {
  formatAmount,
  formatChatTime,
  formatDistance,
  formatDuration,
  formatNumber,
  formatRelative,
  paidLessThanReward,
} from '../../web/miniapp/src/format.js';

describe('Mini App formatters', () => {
  it('groups an amount in the language without rounding a digit away', () => {
    expect(formatNumber('1234567.123456789', 'en')).toBe('1,234,567.123456789');
    expect(formatNumber('1234567.123456789', 'ru')).toBe('1\u00a0234\u00a0567,123456789');
    expect(formatAmount('6.5', 'TON', 'ru')).toBe('6,5\u00a0TON');
    expect(formatNumber('not a number', 'en')).toBe('not a number');
  });

  it('writes USDT by the same rule as TON (the one formatter): exact, no padding, its name, in the language', () => {
    expect(formatAmount('3.5', 'USDT', 'en')).toBe('3.5\u00a0USDT');
    expect(formatAmount('1250', 'USDT', 'ru')).toBe('1\u00a0250\u00a0USDT');
    expect(formatAmount('0.123456', 'USDT', 'ru')).toBe('0,123456\u00a0USDT');
    expect(formatAmount('3', 'TON', 'en')).toBe('3\u00a0TON');
    expect(formatAmount('0', 'USDT', 'en')).toBe(formatAmount('0', 'TON', 'en').replace('TON', 'USDT'));
  });

  it('says deadlines relative to now, in the language', () => {
    const now = new Date('2026-11-26T12:00:00Z');
    expect(formatRelative('2026-11-28T12:00:00Z', now, 'en')).toBe('in 2 days');
    expect(formatRelative('2026-11-29T12:00:00Z', now, 'ru')).toBe('через 3 дня');
    expect(formatRelative('2026-11-28T12:00:00Z', now, 'ru')).toBe('послезавтра');
    expect(formatRelative('2026-11-26T09:00:00Z', now, 'en')).toBe('3 hours ago');
    expect(formatRelative('2026-11-26T12:20:00Z', now, 'en')).toBe('in 20 minutes');
  });

  it('writes spans and distances in the language', () => {
    expect(formatDuration((2 * 24 + 3) * 3600_000, 'en')).toBe('2 days 3 hours');
    expect(formatDuration(5 * 60_000, 'ru')).toBe('5 минут');
    expect(formatDistance(850, 'en')).toBe('850 m');
    expect(formatDistance(1234, 'en')).toBe('1.2 km');
  });

  it('shows only the time for a chat message sent today', () => {
    const now = new Date(2026, 10, 26, 18, 0);
    expect(formatChatTime(new Date(2026, 10, 26, 14, 5).toISOString(), now, 'ru')).toBe('14:05');
    expect(formatChatTime(new Date(2026, 10, 20, 14, 5).toISOString(), now, 'en')).not.toMatch(/2026/);
    expect(formatChatTime(new Date(2025, 10, 20, 14, 5).toISOString(), now, 'en')).toMatch(/2025/);
  });
});

describe('what the worker was paid, from the settlement (issue 36)', () => {
  it('is nothing while open or when the whole reward was paid, and the settled amount after a split or a loss', () => {
    expect(paidLessThanReward({ reward: '3' })).toBeNull();
    expect(paidLessThanReward({ reward: '3', settlement: { workerAmount: '3' } })).toBeNull();
    expect(paidLessThanReward({ reward: '3.5', settlement: { workerAmount: '3.50' } })).toBeNull();
    expect(paidLessThanReward({ reward: '3', settlement: { workerAmount: '1.8' } })).toBe('1.8');
    expect(paidLessThanReward({ reward: '3', settlement: { workerAmount: '0' } })).toBe('0');
  });
});
