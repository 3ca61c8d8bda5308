/**
 * Every status and every allowed move, as data. Domain code asks this table; SQL updates use
 * the `from` lists in their WHERE clauses (compare-and-set), so a move that is not listed here
 * cannot happen even when two requests race.
 */
export const TASK_STATUSES = [
  'OPEN',
  'FUNDED',
  'OFFERED',
  'ASSIGNED',
  'IN_PROGRESS',
  'REVIEW',
  'COMPLETED',
  'CANCELLED',
] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const PAYMENT_STATUSES = ['PENDING', 'DEPOSITED', 'RELEASED', 'REFUNDED'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const APPLICATION_STATUSES = ['PENDING', 'OFFERED', 'ACCEPTED', 'DECLINED', 'REJECTED'] as const;
export type ApplicationStatus = (typeof APPLICATION_STATUSES)[number];

interface Move {
  from: readonly TaskStatus[];
  to: TaskStatus;
}

/** Task moves caused by actions (besides the work-status moves below). */
export const TASK_MOVES = {
  acceptApplication: { from: ['FUNDED'], to: 'ASSIGNED' },
  acceptOffer: { from: ['OFFERED'], to: 'ASSIGNED' },
  declineOffer: { from: ['OFFERED'], to: 'FUNDED' },
  expire: { from: ['ASSIGNED'], to: 'FUNDED' },
  cancel: { from: ['OPEN', 'FUNDED', 'OFFERED'], to: 'CANCELLED' },
  refund: { from: ['OPEN', 'FUNDED', 'OFFERED', 'ASSIGNED', 'IN_PROGRESS', 'REVIEW'], to: 'CANCELLED' },
  complete: { from: ['ASSIGNED', 'IN_PROGRESS', 'REVIEW'], to: 'COMPLETED' },
  /** The assigned worker hands in work (a submission); the review clock starts. */
  submit: { from: ['ASSIGNED', 'IN_PROGRESS'], to: 'REVIEW' },
  /** The agent asks for changes to the waiting submission. */
  requestRevision: { from: ['REVIEW'], to: 'IN_PROGRESS' },
  /** The review window ended in silence: completed for the agent. */
  autoRelease: { from: ['REVIEW'], to: 'COMPLETED' },
} as const satisfies Record<string, Move>;
export type TaskMove = keyof typeof TASK_MOVES;

/** PATCH /tasks/:id status moves, allowed to the owning agent and the assigned worker. */
export const WORK_STATUS_MOVES: Partial<Record<TaskStatus, readonly TaskStatus[]>> = {
  ASSIGNED: ['IN_PROGRESS', 'REVIEW'],
  IN_PROGRESS: ['REVIEW'],
  REVIEW: ['IN_PROGRESS'],
};
export const WORK_STATUSES = ['IN_PROGRESS', 'REVIEW'] as const;
export type WorkStatus = (typeof WORK_STATUSES)[number];

/** Statuses in which the task's money is still locked (neither paid out nor returned). */
export const LOCKED_STATUSES: readonly TaskStatus[] = TASK_STATUSES.filter(
  (s) => s !== 'COMPLETED' && s !== 'CANCELLED',
);

/** Statuses in which a worker holds the task. */
export const WORKING_STATUSES: readonly TaskStatus[] = ['ASSIGNED', 'IN_PROGRESS', 'REVIEW'];

export function canMove(move: TaskMove, from: TaskStatus): boolean {
  return (TASK_MOVES[move].from as readonly TaskStatus[]).includes(from);
}

export function canChangeWorkStatus(from: TaskStatus, to: TaskStatus): boolean {
  return WORK_STATUS_MOVES[from]?.includes(to) ?? false;
}
