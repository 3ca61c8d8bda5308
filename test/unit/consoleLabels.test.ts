import { describe, expect, it } from 'vitest';
import type { DeliveryRow } from '../../src/db/repositories/executor.js';
import type { ApprovalStatus, NotificationKind } from '../../src/db/schema.js';
import { LEDGER_TYPES } from '../../src/domain/money/transactions.js';
import { APPLICATION_STATUSES, PAYMENT_STATUSES, TASK_STATUSES } from '../../src/domain/tasks/states.js';
import { niceCeiling } from '../../web/console/src/chartScale.js';
import {
  APPLICATION_LABEL,
  APPROVAL_STATUS_LABEL,
  DELIVERY_STATUS_LABEL,
  LEDGER_STATUS_LABEL,
  LEDGER_TYPE_LABEL,
  labelOf,
  NOTIFICATION_STATUS_LABEL,
  PAYMENT_STATUS_LABEL,
  TASK_STATUS_LABEL,
  taskStatusLabel,
  wordsOf,
} from '../../web/console/src/labels.js';
import { formatTon } from '../../web/console/src/ton.js';

/** Words, not an enum: no underscores, not all capitals, starting with a capital letter. */
const words = (label: string | undefined) => {
  expect(label).toBeTruthy();
  expect(label).not.toMatch(/_|^[A-Z]{2,}$|^[A-Z_ ]{4,}$/);
  expect(label![0]).toBe(label![0]!.toUpperCase());
};

// Every value of the server's own lists (typed, so a new value fails to compile here until named).
const DELIVERY_STATUSES: Record<DeliveryRow['status'], true> = {
  pending: true,
  delivered: true,
  failed: true,
};
const APPROVAL_STATUSES: Record<ApprovalStatus, true> = {
  PENDING: true,
  APPROVED: true,
  DECLINED: true,
  EXPIRED: true,
  FAILED: true,
};
const LEDGER_STATUSES = ['confirmed', 'pending'];
const TRANSFER_STATUSES = ['pending', 'sent', 'failed'];
const NOTIFICATION_STATUSES = ['pending', 'sent', 'failed', 'recorded'];
const NOTIFICATION_KINDS: Record<NotificationKind, true> = {
  offer: true,
  application_accepted: true,
  application_rejected: true,
  batch_full: true,
  message: true,
  payment_sent: true,
  payment_failed: true,
  task_expired: true,
  offer_withdrawn: true,
  task_cancelled: true,
  dispute_opened: true,
  dispute_resolved: true,
  submission_received: true,
  revision_requested: true,
  review_reminder: true,
  auto_released: true,
  partial_offered: true,
  bonus_paid: true,
};

describe('the console says every state in words (labels.ts)', () => {
  it('has words for every task, payment, application, ledger, delivery and notification value', () => {
    for (const s of TASK_STATUSES) words(TASK_STATUS_LABEL[s]);
    for (const s of PAYMENT_STATUSES) words(PAYMENT_STATUS_LABEL[s]);
    for (const s of Object.keys(APPROVAL_STATUSES)) words(APPROVAL_STATUS_LABEL[s]);
    for (const s of APPLICATION_STATUSES) words(APPLICATION_LABEL[s]);
    for (const s of LEDGER_TYPES) words(LEDGER_TYPE_LABEL[s]);
    for (const s of [...LEDGER_STATUSES, ...TRANSFER_STATUSES]) words(LEDGER_STATUS_LABEL[s]);
    for (const s of Object.keys(DELIVERY_STATUSES)) words(DELIVERY_STATUS_LABEL[s]);
    for (const s of NOTIFICATION_STATUSES) words(NOTIFICATION_STATUS_LABEL[s]);
    for (const k of Object.keys(NOTIFICATION_KINDS)) words(wordsOf(k));
    expect(LEDGER_TYPE_LABEL.TASK_ESCROW).toBe('Held for a task');
    expect(TASK_STATUS_LABEL.FUNDED).toBe('Open for applications');
    expect(wordsOf('task_cancelled')).toBe('Task cancelled');
    expect(wordsOf(undefined)).toBe('Other');
    expect(labelOf(LEDGER_TYPE_LABEL, 'SOMETHING_NEW')).toBe('Other');
  });

  it('an open dispute outranks the task status on the status tile', () => {
    expect(taskStatusLabel({ status: 'REVIEW', dispute: { status: 'OPEN' } })).toBe('In dispute');
    expect(taskStatusLabel({ status: 'COMPLETED', dispute: { status: 'RESOLVED' } })).toBe('Completed');
    expect(taskStatusLabel({ status: 'FUNDED' })).toBe('Open for applications');
  });

  it('formats TON exactly, grouping thousands', () => {
    expect(formatTon('1234567.123456789')).toBe('1,234,567.123456789');
    expect(formatTon('999')).toBe('999');
    expect(formatTon('0.5')).toBe('0.5');
    expect(formatTon('-1000')).toBe('-1,000');
    expect(formatTon(null)).toBe('—');
    expect(formatTon('n/a')).toBe('n/a');
  });

  it('rounds the chart axis up to 1, 2 or 5 times a power of ten', () => {
    expect(niceCeiling(0)).toBe(1);
    expect(niceCeiling(7)).toBe(10);
    expect(niceCeiling(10)).toBe(10);
    expect(niceCeiling(13)).toBe(20);
    expect(niceCeiling(0.3)).toBe(0.5);
    expect(niceCeiling(450)).toBe(500);
  });
});
