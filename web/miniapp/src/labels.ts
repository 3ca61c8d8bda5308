/**
 * Every state the worker can meet, in plain words, in one place: a screen never shows a raw
 * enum. test/unit/miniappLabels.test.ts checks that each value of each state has its words.
 */
import type { Application, Dispute, Statement, Submission, TaskStatus } from './api.js';

export const TASK_STATUS_LABEL: Record<TaskStatus, string> = {
  OPEN: 'Open',
  FUNDED: 'Open',
  OFFERED: 'Offered to you',
  ASSIGNED: 'Assigned to you',
  IN_PROGRESS: 'In progress',
  REVIEW: 'In review',
  COMPLETED: 'Completed',
  CANCELLED: 'Cancelled',
};

export const APPLICATION_LABEL: Record<Application['status'], string> = {
  PENDING: 'Waiting for the agent',
  ACCEPTED: 'Accepted',
  REJECTED: 'Not selected',
  OFFERED: 'Offered to you',
  DECLINED: 'Declined by you',
};

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

/** What the task's state means for the worker's next step, in a sentence. */
export function taskStatusLabel(status: TaskStatus, dispute: Dispute | null | undefined): string {
  if (dispute?.status === 'OPEN') return 'In dispute';
  return TASK_STATUS_LABEL[status];
}

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
export function resolutionLabel(workerAmount: string, reward: string): string {
  if (Number(workerAmount) === 0) return 'The operator decided that the reward goes back to the agent.';
  if (workerAmount === reward || Number(workerAmount) >= Number(reward))
    return `The operator decided that you get the whole reward, ${workerAmount} TON.`;
  return `The operator decided that you get ${workerAmount} TON of the ${reward} TON reward.`;
}
