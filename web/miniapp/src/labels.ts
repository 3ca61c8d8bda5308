/**
 * Every state the worker can meet, in plain words, in one place: a screen never shows a raw
 * enum. The task's state as this worker sees it (task status and their own application together)
 * comes from ONE mapping, workerTaskState; its words are the `status.*` messages of the
 * translation files. test/unit/miniappLabels.test.ts runs every combination through it.
 */
import type { Application, Dispute, Statement, Submission, TaskStatus } from './api.js';

/** What a task is to this worker, the single source of every status label the screens show. */
export type WorkerTaskState =
  | 'open'
  | 'applied'
  | 'rejected'
  | 'offered'
  | 'declined'
  | 'assigned'
  | 'inProgress'
  | 'changesAsked'
  | 'inReview'
  | 'inDispute'
  | 'completed'
  | 'cancelled'
  | 'expired';

export const WORKER_TASK_STATES: readonly WorkerTaskState[] = [
  'open',
  'applied',
  'rejected',
  'offered',
  'declined',
  'assigned',
  'inProgress',
  'changesAsked',
  'inReview',
  'inDispute',
  'completed',
  'cancelled',
  'expired',
];

/** What the screens know about a task and the worker's relation to it. */
export interface TaskAsSeen {
  status: TaskStatus;
  /** This worker's own application to the task (null: none, undefined: not known here). */
  application?: Application['status'] | null;
  /** The task's dispute is open (only an operator can move the task now). */
  disputeOpen?: boolean;
  /** The agent asked for changes to the latest submission, and the worker has not sent again. */
  changesAsked?: boolean;
  /** The task's absolute deadline: once it has passed, an open task can no longer be taken. */
  applyBy?: string | null;
}

const WORKING: Partial<Record<TaskStatus, WorkerTaskState>> = {
  ASSIGNED: 'assigned',
  IN_PROGRESS: 'inProgress',
  REVIEW: 'inReview',
  COMPLETED: 'completed',
};

/**
 * The one mapping. The worker's own answer or the agent's choice comes first: a declined offer
 * or a rejected application says so whatever became of the task (someone else's task is not
 * "Assigned to you"); then the task's own state for the worker's tasks; an open task is "Applied"
 * once they applied, and "Expired" once its deadline has passed (nobody can do it in time).
 */
export function workerTaskState(seen: TaskAsSeen, now: Date = new Date()): WorkerTaskState {
  const { status, application } = seen;
  if (application === 'DECLINED') return 'declined';
  if (status === 'CANCELLED') return 'cancelled';
  if (application === 'REJECTED') return 'rejected';
  const working = WORKING[status];
  if (working) {
    // Another worker holds it while this one's application still waits: they were not chosen.
    if (application === 'PENDING') return 'rejected';
    if (seen.disputeOpen && status !== 'COMPLETED') return 'inDispute';
    if (working === 'inProgress' && seen.changesAsked) return 'changesAsked';
    return working;
  }
  if (status === 'OFFERED') return 'offered';
  const closed = seen.applyBy ? new Date(seen.applyBy).getTime() <= now.getTime() : false;
  if (application === 'PENDING' || application === 'ACCEPTED' || application === 'OFFERED')
    return closed ? 'expired' : 'applied';
  return closed ? 'expired' : 'open';
}

/** How a state looks: its pill's colour. */
export function stateTone(state: WorkerTaskState): 'action' | 'active' | 'done' | 'closed' | 'neutral' {
  switch (state) {
    case 'offered':
    case 'assigned':
    case 'changesAsked':
      return 'action';
    case 'applied':
    case 'inProgress':
    case 'inReview':
    case 'inDispute':
      return 'active';
    case 'completed':
      return 'done';
    case 'rejected':
    case 'declined':
    case 'cancelled':
    case 'expired':
      return 'closed';
    default:
      return 'neutral';
  }
}

export const SUBMISSION_LABEL: Record<Submission['status'], string> = {
  PENDING: 'Waiting for review',
  ACCEPTED: 'Approved',
  REVISION_REQUESTED: 'Changes asked',
  DISPUTED: 'In dispute',
};

export const DISPUTE_LABEL: Record<Dispute['status'], string> = {
  OPEN: 'Open: an operator will decide',
  RESOLVED: 'Decided by an operator',
};

/** Who wrote a statement or opened the dispute, as the worker reads it. */
export const PARTY_LABEL: Record<Statement['by'], string> = {
  WORKER: 'You',
  AGENT: 'The agent',
  OPERATOR: 'Handoff operator',
};

/** "2 days 3 hours", "5 hours 10 minutes", "4 minutes", "less than a minute". */
export function durationLabel(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return 'less than a minute';
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const mins = minutes % 60;
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (days > 0) return hours > 0 ? `${unit(days, 'day')} ${unit(hours, 'hour')}` : unit(days, 'day');
  if (hours > 0) return mins > 0 ? `${unit(hours, 'hour')} ${unit(mins, 'minute')}` : unit(hours, 'hour');
  return unit(mins, 'minute');
}

/** "850 m", "1.2 km", "35 km". */
export function distanceLabel(meters: number): string {
  if (meters < 1000) return `${Math.round(meters)} m`;
  const km = meters / 1000;
  return `${km < 10 ? km.toFixed(1) : Math.round(km)} km`;
}

/** A dispute's outcome for the worker: how much of the reward they got. */
export function resolutionLabel(workerAmount: string, reward: string, currency = 'TON'): string {
  if (Number(workerAmount) === 0) return 'The operator decided that the reward goes back to the agent.';
  if (workerAmount === reward || Number(workerAmount) >= Number(reward))
    return `The operator decided that you get the whole reward, ${workerAmount} ${currency}.`;
  return `The operator decided that you get ${workerAmount} ${currency} of the ${reward} ${currency} reward.`;
}
