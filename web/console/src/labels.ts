/**
 * Task, payment, submission and dispute states in words, in one place: the console never shows
 * a raw enum. test/unit/consoleLabels.test.ts checks every value has its words.
 */

export const TASK_STATUS_LABEL: Record<string, string> = {
  OPEN: 'Open (not funded)',
  FUNDED: 'Open for applications',
  OFFERED: 'Offered to a worker',
  ASSIGNED: 'Assigned',
  IN_PROGRESS: 'In progress',
  REVIEW: 'Waiting for your review',
  COMPLETED: 'Completed',
  CANCELLED: 'Cancelled',
};

export const PAYMENT_STATUS_LABEL: Record<string, string> = {
  PENDING: 'Not funded',
  DEPOSITED: 'Held in escrow',
  RELEASED: 'Paid to the worker',
  REFUNDED: 'Refunded',
};

/**
 * The payment line of a task. Once it ended, from its recorded settlement: a split or a graded
 * approval paid part and returned the rest, a decision for the agent returned it all, which the
 * escrow's own status (RELEASED, REFUNDED) cannot tell apart (issue 36). Only the signs are read.
 */
export function paymentLabel(
  task:
    | { settlement?: { workerAmount: string; refunded: string } | null; paymentStatus?: string }
    | undefined,
): string {
  const settlement = task?.settlement;
  if (!settlement) return labelOf(PAYMENT_STATUS_LABEL, task?.paymentStatus);
  const paid = Number(settlement.workerAmount) > 0;
  const returned = Number(settlement.refunded) > 0;
  if (paid && returned) return 'Paid in part, the rest returned';
  return paid ? 'Paid to the worker' : 'Returned in full';
}

export const SUBMISSION_LABEL: Record<string, string> = {
  PENDING: 'Waiting for review',
  ACCEPTED: 'Approved',
  REVISION_REQUESTED: 'Changes requested',
  DISPUTED: 'In dispute',
};

export const DISPUTE_LABEL: Record<string, string> = {
  OPEN: 'Open',
  RESOLVED: 'Resolved',
};

/** Who opened a dispute or wrote a statement. */
export const PARTY_LABEL: Record<string, string> = {
  AGENT: 'Agent',
  WORKER: 'Worker',
  OPERATOR: 'Operator',
};

/** A label from one of the maps above; an unknown value (a newer server) reads as "other". */
export function labelOf(map: Record<string, string>, value: string | null | undefined): string {
  return (value && map[value]) || 'Other';
}

/** "3 d 4 h", "5 h 10 min", "12 min": how long something has waited. */
export function ageLabel(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  if (days > 0) return `${days} d ${hours} h`;
  if (hours > 0) return `${hours} h ${minutes % 60} min`;
  return `${minutes} min`;
}

/** The review clock of a waiting submission, in words. */
export function reviewLeftLabel(deadline: string | null | undefined, nowMs: number): string | null {
  if (!deadline) return null;
  const left = new Date(deadline).getTime() - nowMs;
  return left > 0
    ? `${ageLabel(left)} left to review; then the reward is released to the worker automatically`
    : 'The review time is over: the reward is being released to the worker';
}

export const APPLICATION_LABEL: Record<string, string> = {
  PENDING: 'Applied',
  OFFERED: 'Offered',
  ACCEPTED: 'Accepted',
  DECLINED: 'Declined',
  REJECTED: 'Not chosen',
};

/** Ledger lines: what moved the money, from the agent's side. */
export const LEDGER_TYPE_LABEL: Record<string, string> = {
  DEPOSIT: 'Deposit',
  TASK_ESCROW: 'Held for a task',
  PAYOUT: 'Paid to the worker',
  REFUND: 'Returned to balance',
  FEE: 'Platform fee',
  BONUS: 'Bonus to the worker',
  BONUS_FEE: 'Platform fee on a bonus',
  TEST_FAUCET: 'Test money (test mode)',
};

/** A ledger line's or a chain transfer's state. */
export const LEDGER_STATUS_LABEL: Record<string, string> = {
  confirmed: 'Confirmed',
  pending: 'Waiting for the chain',
  sent: 'Sent',
  failed: 'Failed, still owed',
};

export const DELIVERY_STATUS_LABEL: Record<string, string> = {
  pending: 'Waiting to send',
  delivered: 'Delivered',
  failed: 'Failed',
};

export const NOTIFICATION_STATUS_LABEL: Record<string, string> = {
  pending: 'Waiting',
  sent: 'Sent',
  failed: 'Failed',
  recorded: 'Recorded (no bot)',
};

/**
 * A lower-case machine word ("task_cancelled", "offer") as words ("Task cancelled"): for kinds the
 * server may add to (notification kinds), where a newer kind still reads as words.
 */
export function wordsOf(value: string | null | undefined): string {
  if (!value) return 'Other';
  const words = value.replace(/[_.]+/g, ' ').trim().toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The status tile's words: an open dispute outranks the task's own status. */
export function taskStatusLabel(task: { status: string; dispute?: { status: string } | null }): string {
  return task.dispute?.status === 'OPEN' ? 'In dispute' : labelOf(TASK_STATUS_LABEL, task.status);
}

/** A badge's colour class for a task status: waiting on you, under way, done, stopped. */
export function taskStatusTone(status: string): 'warn' | 'ok' | 'info' | 'off' {
  if (status === 'REVIEW') return 'warn';
  if (status === 'COMPLETED') return 'ok';
  if (status === 'CANCELLED') return 'off';
  return 'info';
}

/** An approval's state (issue 38), from the owner's side. */
export const APPROVAL_STATUS_LABEL: Record<string, string> = {
  PENDING: 'Waiting for you',
  APPROVED: 'Approved: task created',
  DECLINED: 'Declined',
  EXPIRED: 'Expired unanswered',
  FAILED: 'Approved, but not created',
};

/** A badge's colour class for an approval: waiting, created, refused, stopped. */
export function approvalTone(status: string): 'warn' | 'ok' | 'bad' | 'off' {
  if (status === 'PENDING') return 'warn';
  if (status === 'APPROVED') return 'ok';
  if (status === 'FAILED') return 'bad';
  return 'off';
}

/** A key's activity line (issue 38): a ledger row's type (LEDGER_TYPE_LABEL) or one of these events. */
export const ACTIVITY_EVENT_LABEL: Record<string, string> = {
  'application.accepted': 'Application accepted',
  'offer.accepted': 'Offer accepted',
  'offer.declined': 'Offer declined',
  'task.submitted': 'Work submitted',
  'task.rejected_by_review': 'Work rejected at review',
  'task.partial_offered': 'Partial payment offered',
  'task.expired': 'Task expired',
  'dispute.opened': 'Dispute opened',
  'dispute.resolved': 'Dispute resolved',
};

/** Who did an activity line's thing. */
export const ACTOR_LABEL: Record<string, string> = {
  key: 'this key',
  agent: 'the agent',
  operator: 'the operator',
  auto: 'automatically',
  worker: 'the worker',
};

/** What each key scope allows (src/domain/agents/keyScopes.ts), for the policy editor's checkboxes. */
export const SCOPE_LABEL: Record<string, string> = {
  'tasks:read': 'Read tasks, the ledger and the profile',
  'tasks:write': 'Create (escrow), change and cancel tasks; review work',
  chat: 'Read and send chat messages',
  money: 'Complete (pay), refund and pay bonuses',
  webhooks: 'Set and test the webhook URL',
  'workers:read': 'Browse the worker catalog',
};

/** A key's four limits per currency, as the policy editor names them. */
export const LIMIT_LABEL: Record<string, string> = {
  maxTaskAmount: 'Max per task',
  dailyLimit: 'Daily limit',
  monthlyLimit: 'Monthly limit',
  approvalAbove: 'Ask me above',
};
