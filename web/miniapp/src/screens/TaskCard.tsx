import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import {
  type AgentReputation,
  type Application,
  type BatchCard,
  batchLimitReached,
  type GeoPoint,
  type Task,
} from '../api';
import { formatAmount, formatDistance, formatNumber, formatRelative, paidLessThanReward } from '../format';
import { distanceMeters } from '../geo';
import { stateTone, type WorkerTaskState, workerTaskState } from '../labels';
import { haptic } from '../telegram';
import { UnreadBadge, useUnreadCount } from './UnreadBadge';

/** The task's state for this worker, from the one mapping (labels.ts). */
export function stateOf(task: Task, application?: Application['status'] | null): WorkerTaskState {
  return workerTaskState({
    status: task.status,
    application: application !== undefined ? application : task.yourApplication,
    disputeOpen: task.dispute?.status === 'OPEN',
    changesAsked: task.submission?.status === 'REVISION_REQUESTED',
    applyBy: task.deadline ?? null,
  });
}

/** The state as a pill: its words and its colour. */
export function StatePill({ state }: { state: WorkerTaskState }) {
  const { t } = useTranslation();
  return <span className={`pill tone-${stateTone(state)}`}>{t(`status.${state}`)}</span>;
}

/**
 * A task in a list, as a Telegram list cell: the title (wrapping) with the reward beside it, the
 * task's state for this worker and its deadline, then what a worker weighs before applying:
 * whom it is for (their record), when it was posted, how many applied and how far it is.
 */
export function TaskCard({
  task,
  onOpen,
  application,
  here,
  compact,
}: {
  task: Task;
  onOpen: (task: Task) => void;
  /** The worker's application, when the list knows it better than the task does. */
  application?: Application['status'] | null;
  /** Where the worker is, when they shared it: the distance to the task's place. */
  here?: GeoPoint | null;
  /** Known only from an application: no agent, dates or counts to show. */
  compact?: boolean;
}) {
  const unread = useUnreadCount(task.id);
  const { t } = useTranslation();
  const state = stateOf(task, application);
  const facts = compact ? [] : trustFacts(t, task, here ?? null);
  return (
    <li>
      <button
        type="button"
        className="cell task-cell"
        aria-describedby={unread > 0 ? `unread-${task.id}` : undefined}
        onClick={() => {
          haptic.selection();
          onOpen(task);
        }}
      >
        {/* Named by what it shows (axe: the visible words are the name), with what it does first. */}
        <span className="sr-only">{t('tasks.openTask')} </span>
        <span className="task-head">
          <strong className="task-title">{task.title}</strong>
          <UnreadBadge count={unread} id={`unread-${task.id}`} />
          <span className="reward">{rewardShown(t, task)}</span>
        </span>
        <span className="task-meta">
          <StatePill state={state} />
          {compact ? null : <span className="muted small">{deadlineText(t, task)}</span>}
        </span>
        {task.batch ? <BatchPlaces batch={task.batch} /> : null}
        {facts.length > 0 ? <span className="task-trust muted small">{facts.join(' · ')}</span> : null}
      </button>
    </li>
  );
}

/** A batch's card says how many places are open, and when this worker cannot take another. */
export function BatchPlaces({ batch }: { batch: BatchCard }) {
  const { t } = useTranslation();
  return (
    <span className="task-batch small">
      <strong>{t('task.placesLeft', { left: batch.placesLeft, count: batch.count })}</strong>
      {batchLimitReached(batch) ? (
        <span className="muted"> · {t('task.batchLimit', { max: batch.maxPerWorker })}</span>
      ) : null}
    </span>
  );
}

/** The agent's record in a few words: name, rating, tasks paid, disputes lost. */
export function agentSummary(t: TFunction, agent: AgentReputation): string[] {
  const out = [agent.name ?? t('task.anAgent')];
  if (agent.averageRating != null && (agent.ratingCount ?? 0) > 0)
    out.push(t('task.agentRating', { rating: formatNumber(agent.averageRating.toFixed(1)) }));
  if (agent.tasksPaid !== undefined) out.push(t('task.tasksPaid', { count: agent.tasksPaid }));
  if (agent.disputesLost) out.push(t('task.disputesLost', { count: agent.disputesLost }));
  return out;
}

function trustFacts(t: TFunction, task: Task, here: GeoPoint | null): string[] {
  const out = agentSummary(t, task.agent);
  out.push(t('task.posted', { when: formatRelative(task.createdAt) }));
  // A batch's card counts places instead: its one task's applicants say nothing of the batch.
  if (task.applicants !== undefined && !task.batch && (task.status === 'FUNDED' || task.status === 'OPEN'))
    out.push(t('task.applicants', { count: task.applicants }));
  if (task.location) {
    out.push(
      here
        ? t('task.away', { distance: formatDistance(distanceMeters(task.location, here)) })
        : (task.location.label ?? t('task.onSite')),
    );
  }
  return out;
}

/** The deadline that matters now, relative to today ("Due in 2 days"). */
export function deadlineText(t: TFunction, task: Task): string {
  const now = new Date();
  // Waiting for the agent: what matters now is when the review ends (then the worker is paid).
  if (task.status === 'REVIEW' && task.reviewDeadline && task.dispute?.status !== 'OPEN')
    return t('task.reviewEnds', { when: formatRelative(task.reviewDeadline, now) });
  if (task.status === 'COMPLETED' || task.status === 'CANCELLED') return '';
  if (task.executionDeadline) return t('task.due', { when: formatRelative(task.executionDeadline, now) });
  if (task.deadline)
    return new Date(task.deadline) <= now
      ? t('task.applyClosed', { when: formatRelative(task.deadline, now) })
      : t('task.due', { when: formatRelative(task.deadline, now) });
  if (task.executionDeadlineDays) return t('task.daysToDo', { count: task.executionDeadlineDays });
  return t('task.noDeadline');
}

/**
 * The task's amount as the worker reads it: the reward, or once the task ended with less paid
 * (a split or lost dispute), "1.8 TON of 3 TON" from the recorded settlement, never recomputed.
 */
export function rewardShown(t: TFunction, task: Pick<Task, 'reward' | 'currency' | 'settlement'>): string {
  const paid = paidLessThanReward(task);
  const reward = formatAmount(task.reward, task.currency);
  return paid === null ? reward : t('task.paidOfReward', { paid: formatAmount(paid, task.currency), reward });
}
