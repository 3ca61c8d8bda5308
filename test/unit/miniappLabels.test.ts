/**
 * The Mini App's one mapping of task and application state, as the worker sees it (issue 27):
 * every combination gives one non-empty label in every language, and the combinations that
 * used to lie ("Not selected · Assigned to you", an empty label for a declined offer, "Offered
 * to you · Offered to you") say what is true.
 */
import { createInstance } from 'i18next';
import ICU from 'i18next-icu';
import { describe, expect, it } from 'vitest';
import { TASK_STATUSES } from '../../src/domain/tasks/states.js';
import type { Application, TaskStatus } from '../../web/miniapp/src/api.js';
import {
  stateTone,
  WORKER_TASK_STATES,
  type WorkerTaskState,
  workerTaskState,
} from '../../web/miniapp/src/labels.js';
import en from '../../web/miniapp/src/locales/en.json' with { type: 'json' };
import ru from '../../web/miniapp/src/locales/ru.json' with { type: 'json' };

const APPLICATIONS: (Application['status'] | null)[] = [
  null,
  'PENDING',
  'OFFERED',
  'ACCEPTED',
  'DECLINED',
  'REJECTED',
];
const NOW = new Date('2026-11-26T12:00:00Z');
const FUTURE = '2026-11-28T12:00:00Z';
const PAST = '2026-11-25T12:00:00Z';

async function translator(language: 'en' | 'ru') {
  const i18n = createInstance();
  await i18n.use(ICU).init({
    lng: language,
    resources: { en: { translation: en }, ru: { translation: ru } },
    interpolation: { escapeValue: false },
  });
  return i18n.t.bind(i18n);
}

const state = (
  status: TaskStatus,
  application: Application['status'] | null,
  extra: { disputeOpen?: boolean; applyBy?: string } = {},
) => workerTaskState({ status, application, ...extra }, NOW);

describe('the worker’s task state (web/miniapp/src/labels.ts)', () => {
  it('names each of the eleven situations the worker meets', () => {
    const cases: [string, WorkerTaskState][] = [
      ['pending', state('FUNDED', 'PENDING', { applyBy: FUTURE })],
      ['rejected', state('ASSIGNED', 'REJECTED')],
      ['offered', state('OFFERED', 'OFFERED')],
      ['declined', state('FUNDED', 'DECLINED')],
      ['accepted', state('ASSIGNED', 'ACCEPTED')],
      ['assigned', state('ASSIGNED', null)],
      ['in progress', state('IN_PROGRESS', 'ACCEPTED')],
      ['in review', state('REVIEW', 'ACCEPTED')],
      ['completed', state('COMPLETED', 'ACCEPTED')],
      ['cancelled', state('CANCELLED', 'PENDING')],
      ['expired', state('FUNDED', 'PENDING', { applyBy: PAST })],
    ];
    expect(Object.fromEntries(cases)).toEqual({
      pending: 'applied',
      rejected: 'rejected',
      offered: 'offered',
      declined: 'declined',
      accepted: 'assigned',
      assigned: 'assigned',
      'in progress': 'inProgress',
      'in review': 'inReview',
      completed: 'completed',
      cancelled: 'cancelled',
      expired: 'expired',
    });
    expect(state('FUNDED', null)).toBe('open');
    expect(state('FUNDED', null, { applyBy: PAST })).toBe('expired');
    expect(state('IN_PROGRESS', 'ACCEPTED', { disputeOpen: true })).toBe('inDispute');
    // Issue 36: the agent's "changes, please" is its own state, until the worker sends again.
    expect(workerTaskState({ status: 'IN_PROGRESS', application: 'ACCEPTED', changesAsked: true }, NOW)).toBe(
      'changesAsked',
    );
    expect(workerTaskState({ status: 'REVIEW', application: 'ACCEPTED', changesAsked: false }, NOW)).toBe(
      'inReview',
    );
    expect(
      workerTaskState(
        { status: 'IN_PROGRESS', application: 'ACCEPTED', changesAsked: true, disputeOpen: true },
        NOW,
      ),
    ).toBe('inDispute');
  });

  it('never says a task someone else holds is the worker’s', () => {
    for (const status of ['ASSIGNED', 'IN_PROGRESS', 'REVIEW', 'COMPLETED'] as const) {
      expect(state(status, 'REJECTED')).toBe('rejected');
      // Still waiting while another worker holds it: they were not chosen.
      expect(state(status, 'PENDING')).toBe('rejected');
      expect(state(status, 'DECLINED')).toBe('declined');
    }
    // A rejected application of a task the agent cancelled: cancelled, which is what happened.
    expect(state('CANCELLED', 'REJECTED')).toBe('cancelled');
  });

  it('gives every combination exactly one label, non-empty and plain, in every language', async () => {
    for (const language of ['en', 'ru'] as const) {
      const t = await translator(language);
      const seen = new Set<string>();
      for (const status of TASK_STATUSES as readonly TaskStatus[]) {
        for (const application of APPLICATIONS) {
          for (const extra of [{}, { applyBy: PAST }, { applyBy: FUTURE, disputeOpen: true }]) {
            const s = state(status, application, extra);
            expect(WORKER_TASK_STATES).toContain(s);
            const label = t(`status.${s}`);
            const detail = t(`status.detail.${s}`);
            const where = `${language} ${status}/${application}/${JSON.stringify(extra)} -> ${s}`;
            expect(label, where).toMatch(/\S/);
            expect(label, where).not.toMatch(/status\.|[A-Z]{2,}_|·/);
            expect(detail, where).toMatch(/[.!]$/);
            expect(stateTone(s)).toMatch(/^(action|active|done|closed|neutral)$/);
            seen.add(label);
          }
        }
      }
      // Each state has its own words: no two states read the same.
      const labels = WORKER_TASK_STATES.map((s) => t(`status.${s}`));
      expect(new Set(labels).size, `${language}: ${labels.join(', ')}`).toBe(labels.length);
      expect(seen.size).toBeGreaterThan(8);
    }
  });
});
