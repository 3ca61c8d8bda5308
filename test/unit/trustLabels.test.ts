import { describe, expect, it } from 'vitest';
import { PAYMENT_STATUSES, TASK_STATUSES } from '../../src/domain/tasks/states.js';
import {
  ageLabel,
  APPLICATION_LABEL as CONSOLE_APPLICATION_LABEL,
  DISPUTE_LABEL as CONSOLE_DISPUTE_LABEL,
  PARTY_LABEL as CONSOLE_PARTY_LABEL,
  SUBMISSION_LABEL as CONSOLE_SUBMISSION_LABEL,
  TASK_STATUS_LABEL as CONSOLE_TASK_STATUS_LABEL,
  labelOf,
  PAYMENT_STATUS_LABEL,
  reviewLeftLabel,
} from '../../web/console/src/labels.js';
import { amountAtPercent, percentOf, splitForInput, splitOf } from '../../web/console/src/split.js';
import { distanceMeters, placeOf } from '../../web/miniapp/src/geo.js';
import {
  DISPUTE_LABEL,
  distanceLabel,
  durationLabel,
  PARTY_LABEL,
  resolutionLabel,
  SUBMISSION_LABEL,
} from '../../web/miniapp/src/labels.js';

const SUBMISSION_STATUSES = ['PENDING', 'ACCEPTED', 'REVISION_REQUESTED', 'DISPUTED'];
const APPLICATION_STATUSES = ['PENDING', 'OFFERED', 'ACCEPTED', 'DECLINED', 'REJECTED'];
/** Words, not an enum: no underscores, not all capitals. */
const plain = (label: string | undefined) => {
  expect(label).toBeTruthy();
  expect(label).not.toMatch(/_|^[A-Z]{2,}$/);
};

describe('the web apps say every state in words', () => {
  // The task and application states: test/unit/miniappLabels.test.ts (one mapping, issue 27).
  it('the Mini App has words for every submission, dispute and party state', () => {
    for (const s of SUBMISSION_STATUSES) plain(SUBMISSION_LABEL[s as keyof typeof SUBMISSION_LABEL]);
    for (const s of ['OPEN', 'RESOLVED'] as const) plain(DISPUTE_LABEL[s]);
    for (const s of ['AGENT', 'WORKER', 'OPERATOR'] as const) plain(PARTY_LABEL[s]);
  });

  it('the console has words for every task, payment, application, submission, dispute and party state', () => {
    for (const s of TASK_STATUSES) plain(labelOf(CONSOLE_TASK_STATUS_LABEL, s));
    for (const s of PAYMENT_STATUSES) plain(PAYMENT_STATUS_LABEL[s]);
    for (const s of APPLICATION_STATUSES) plain(CONSOLE_APPLICATION_LABEL[s]);
    for (const s of SUBMISSION_STATUSES) plain(CONSOLE_SUBMISSION_LABEL[s]);
    for (const s of ['OPEN', 'RESOLVED']) plain(CONSOLE_DISPUTE_LABEL[s]);
    for (const s of ['AGENT', 'WORKER']) plain(CONSOLE_PARTY_LABEL[s]);
    expect(labelOf(CONSOLE_TASK_STATUS_LABEL, 'SOMETHING_NEW')).toBe('Other');
    expect(labelOf(CONSOLE_TASK_STATUS_LABEL, undefined)).toBe('Other');
  });

  it('counts time down in words', () => {
    expect(durationLabel(48 * 3_600_000)).toBe('2 days');
    expect(durationLabel(47 * 3_600_000 + 59 * 60_000)).toBe('1 day 23 hours');
    expect(durationLabel(3_600_000)).toBe('1 hour');
    expect(durationLabel(5 * 3_600_000 + 60_000)).toBe('5 hours 1 minute');
    expect(durationLabel(4 * 60_000 + 59_000)).toBe('4 minutes');
    expect(durationLabel(59_000)).toBe('less than a minute');
    expect(ageLabel(2 * 86_400_000 + 3 * 3_600_000)).toBe('2 d 3 h');
    expect(ageLabel(90 * 60_000)).toBe('1 h 30 min');
    expect(ageLabel(-5)).toBe('0 min');
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(reviewLeftLabel(null, now)).toBeNull();
    expect(reviewLeftLabel('2030-01-03T00:00:00Z', now)).toMatch(/^2 d 0 h left to review/);
    expect(reviewLeftLabel('2029-12-31T23:00:00Z', now)).toBe(
      'The review time is over: the reward is being released to the worker',
    );
  });

  it('tells the worker the decision in words', () => {
    expect(resolutionLabel('0', '3')).toBe('The operator decided that the reward goes back to the agent.');
    expect(resolutionLabel('3', '3')).toBe('The operator decided that you get the whole reward, 3 TON.');
    expect(resolutionLabel('1.5', '3')).toBe(
      'The operator decided that you get 1.5 TON of the 3 TON reward.',
    );
  });

  it('measures distances to the task’s area', () => {
    const square = { latitude: 38.70775, longitude: -9.13659, radiusMeters: 300 };
    const near = { latitude: 38.7081, longitude: -9.1372 };
    expect(Math.round(distanceMeters(square, near))).toBeGreaterThan(55);
    expect(Math.round(distanceMeters(square, near))).toBeLessThan(75);
    expect(placeOf(square, near).inside).toBe(true);
    // Lisbon to Porto is about 274 km as the crow flies.
    const porto = { latitude: 41.1496, longitude: -8.611 };
    expect(distanceMeters(square, porto) / 1000).toBeCloseTo(274, -1);
    expect(placeOf(square, porto).inside).toBe(false);
    expect(distanceLabel(850.4)).toBe('850 m');
    expect(distanceLabel(1234)).toBe('1.2 km');
    expect(distanceLabel(35_400)).toBe('35 km');
  });
});

describe('the split an operator sees before confirming a resolution', () => {
  const NANO = 1_000_000_000n;

  it('pays the worker the amount, takes the fee in proportion rounded down, returns the rest to the agent', () => {
    // Reward 3 TON, fee 0.9 TON: half to the worker.
    expect(splitOf(3n * NANO, 900_000_000n, 1_500_000_000n)).toEqual({
      worker: 1_500_000_000n,
      fee: 450_000_000n,
      agent: 1_950_000_000n,
    });
    expect(splitOf(3n * NANO, 900_000_000n, 0n)).toEqual({ worker: 0n, fee: 0n, agent: 3_900_000_000n });
    expect(splitOf(3n * NANO, 900_000_000n, 3n * NANO)).toEqual({
      worker: 3n * NANO,
      fee: 900_000_000n,
      agent: 0n,
    });
    // Rounding down: fee 1 nanoton x 1 / 3 is 0; the agent keeps the remainder.
    expect(splitOf(3n, 1n, 1n)).toEqual({ worker: 1n, fee: 0n, agent: 3n });
  });

  it('always adds up to the escrowed total', () => {
    const reward = 7_777_777_777n;
    const fee = 2_333_333_333n;
    for (let w = 0n; w <= reward; w += 123_456_789n) {
      const s = splitOf(reward, fee, w);
      expect(s.worker + s.fee + s.agent).toBe(reward + fee);
      expect(s.fee * reward <= fee * w).toBe(true);
      expect(s.agent >= 0n).toBe(true);
    }
  });

  it('refuses amounts outside 0..reward and text that is not an amount, in words', () => {
    expect(splitForInput('3', '0.9', '3.000000001')).toEqual({
      error: 'The worker’s amount must be between 0 and the reward, 3 TON',
    });
    expect(splitForInput('3', '0.9', 'half')).toEqual({
      error: 'Amount: write TON as a number with at most 9 decimals, e.g. 2.5',
    });
    expect(splitForInput('3', '0.9', '-1')).toHaveProperty('error');
  });

  it('moves between the slider’s percent and the amount', () => {
    expect(amountAtPercent('3', 50)).toBe('1.5');
    expect(amountAtPercent('3', 33)).toBe('0.99');
    expect(amountAtPercent('0.000000001', 50)).toBe('0');
    expect(amountAtPercent('3', 150)).toBe('3');
    expect(percentOf('3', '1.5')).toBe(50);
    expect(percentOf('3', 'x')).toBeNull();
    // A USDT task's split is in micro-USDT: 6 decimals at most, the fee rounded as the server does.
    expect(amountAtPercent('3.333333', 33, 'USDT')).toBe('1.099999');
    expect(splitForInput('3', '0.9', '1.000001', 'USDT')).toEqual({
      worker: 1_000_001n,
      fee: 300_000n,
      agent: 2_599_999n,
    });
    expect(splitForInput('3', '0.9', '1.0000001', 'USDT')).toHaveProperty('error');
    expect(splitForInput('3', '0.9', '4', 'USDT')).toEqual({
      error: 'The worker’s amount must be between 0 and the reward, 3 USDT',
    });
    expect(percentOf('3', '1.5', 'USDT')).toBe(50);
  });
});
