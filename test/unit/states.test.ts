import { describe, expect, it } from 'vitest';
import {
  canChangeWorkStatus,
  canMove,
  LOCKED_STATUSES,
  TASK_MOVES,
  TASK_STATUSES,
  type TaskMove,
  type TaskStatus,
  WORK_STATUSES,
  WORKING_STATUSES,
} from '../../src/domain/tasks/states.js';

/** The moves docs/decisions/ and the spec name, written out independently of the table. */
const ALLOWED: Record<TaskMove, { from: TaskStatus[]; to: TaskStatus }> = {
  acceptApplication: { from: ['FUNDED'], to: 'ASSIGNED' },
  acceptOffer: { from: ['OFFERED'], to: 'ASSIGNED' },
  declineOffer: { from: ['OFFERED'], to: 'FUNDED' },
  expire: { from: ['ASSIGNED'], to: 'FUNDED' },
  // DELETE: unassigned tasks (OPEN is legacy but listed by the spec).
  cancel: { from: ['OPEN', 'FUNDED', 'OFFERED'], to: 'CANCELLED' },
  // Refund: assigned tasks, and also FUNDED and OFFERED (same effect as DELETE); OPEN like DELETE.
  refund: { from: ['OPEN', 'FUNDED', 'OFFERED', 'ASSIGNED', 'IN_PROGRESS', 'REVIEW'], to: 'CANCELLED' },
  complete: { from: ['ASSIGNED', 'IN_PROGRESS', 'REVIEW'], to: 'COMPLETED' },
  // Issue 25: a submission starts the review; a revision sends the work back; silence releases.
  submit: { from: ['ASSIGNED', 'IN_PROGRESS'], to: 'REVIEW' },
  requestRevision: { from: ['REVIEW'], to: 'IN_PROGRESS' },
  autoRelease: { from: ['REVIEW'], to: 'COMPLETED' },
};

const WORK_MOVES: [TaskStatus, TaskStatus][] = [
  ['ASSIGNED', 'IN_PROGRESS'],
  ['ASSIGNED', 'REVIEW'],
  ['IN_PROGRESS', 'REVIEW'],
  ['REVIEW', 'IN_PROGRESS'],
];

describe('task moves caused by actions', () => {
  it('has exactly the moves of the decisions and the spec', () => {
    expect(Object.keys(TASK_MOVES).sort()).toEqual(Object.keys(ALLOWED).sort());
    for (const [move, rule] of Object.entries(ALLOWED) as [TaskMove, (typeof ALLOWED)[TaskMove]][]) {
      expect(TASK_MOVES[move].to, move).toBe(rule.to);
      expect([...TASK_MOVES[move].from].sort(), move).toEqual([...rule.from].sort());
    }
  });

  it('canMove allows every listed move and refuses every other from-status', () => {
    for (const [move, rule] of Object.entries(ALLOWED) as [TaskMove, (typeof ALLOWED)[TaskMove]][]) {
      for (const from of TASK_STATUSES) {
        expect(canMove(move, from), `${move} from ${from}`).toBe(rule.from.includes(from));
      }
    }
  });

  it.each([
    ['complete', 'FUNDED'],
    ['complete', 'OFFERED'],
    ['complete', 'COMPLETED'],
    ['complete', 'CANCELLED'],
    ['refund', 'COMPLETED'],
    ['refund', 'CANCELLED'],
    ['cancel', 'ASSIGNED'],
    ['cancel', 'IN_PROGRESS'],
    ['cancel', 'REVIEW'],
    ['cancel', 'COMPLETED'],
    ['acceptApplication', 'OFFERED'],
    ['acceptApplication', 'ASSIGNED'],
    ['acceptOffer', 'FUNDED'],
    ['declineOffer', 'ASSIGNED'],
    ['expire', 'IN_PROGRESS'],
    ['expire', 'REVIEW'],
  ] as [TaskMove, TaskStatus][])('refuses %s from %s', (move, from) => {
    expect(canMove(move, from)).toBe(false);
  });

  it('nothing leaves COMPLETED or CANCELLED', () => {
    for (const move of Object.keys(TASK_MOVES) as TaskMove[]) {
      expect(canMove(move, 'COMPLETED')).toBe(false);
      expect(canMove(move, 'CANCELLED')).toBe(false);
    }
    for (const to of TASK_STATUSES) {
      expect(canChangeWorkStatus('COMPLETED', to)).toBe(false);
      expect(canChangeWorkStatus('CANCELLED', to)).toBe(false);
    }
  });
});

describe('PATCH status moves (agent and assigned worker)', () => {
  it('only IN_PROGRESS and REVIEW can be requested', () => {
    expect([...WORK_STATUSES].sort()).toEqual(['IN_PROGRESS', 'REVIEW']);
  });

  it('allows exactly ASSIGNED->IN_PROGRESS, ASSIGNED->REVIEW, IN_PROGRESS->REVIEW, REVIEW->IN_PROGRESS', () => {
    for (const from of TASK_STATUSES) {
      for (const to of TASK_STATUSES) {
        const allowed = WORK_MOVES.some(([f, t]) => f === from && t === to);
        expect(canChangeWorkStatus(from, to), `${from} -> ${to}`).toBe(allowed);
      }
    }
  });
});

describe('status groups', () => {
  it('money is locked in every status but COMPLETED and CANCELLED', () => {
    expect([...LOCKED_STATUSES].sort()).toEqual(
      ['OPEN', 'FUNDED', 'OFFERED', 'ASSIGNED', 'IN_PROGRESS', 'REVIEW'].sort(),
    );
  });

  it('a worker holds a task while ASSIGNED, IN_PROGRESS or REVIEW', () => {
    expect([...WORKING_STATUSES].sort()).toEqual(['ASSIGNED', 'IN_PROGRESS', 'REVIEW']);
  });

  it('has the eight statuses of the spec', () => {
    expect([...TASK_STATUSES].sort()).toEqual(
      ['OPEN', 'FUNDED', 'OFFERED', 'ASSIGNED', 'IN_PROGRESS', 'REVIEW', 'COMPLETED', 'CANCELLED'].sort(),
    );
  });
});
