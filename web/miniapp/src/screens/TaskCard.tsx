import { shortDate, type Task, ton } from '../api';
import { taskStatusLabel } from '../labels';
import { UnreadBadge, useUnreadCount } from './UnreadBadge';

/** A task in a list: a button that opens it, naming the title, reward and deadline. */
export function TaskCard({
  task,
  onOpen,
  note,
}: {
  task: Task;
  onOpen: (task: Task) => void;
  note?: string;
}) {
  const unread = useUnreadCount(task.id);
  return (
    <li>
      <button
        type="button"
        className="card"
        onClick={() => onOpen(task)}
        aria-label={`Open task ${task.title}`}
        aria-describedby={unread > 0 ? `unread-${task.id}` : undefined}
      >
        <span className="card-row">
          <strong className="card-title">{task.title}</strong>
          <UnreadBadge count={unread} id={`unread-${task.id}`} />
          <span className="reward">{ton(task.reward)}</span>
        </span>
        <span className="card-row muted small">
          <span>{note ?? taskStatusLabel(task.status, task.dispute)}</span>
          <span>{deadlineText(task)}</span>
        </span>
      </button>
    </li>
  );
}

export function deadlineText(task: Task): string {
  // Waiting for the agent: what matters now is when the review ends (then the worker is paid).
  if (task.status === 'REVIEW' && task.reviewDeadline && task.dispute?.status !== 'OPEN')
    return `Review ends ${shortDate(task.reviewDeadline)}`;
  if (task.executionDeadline) return `Due ${shortDate(task.executionDeadline)}`;
  if (task.deadline) return `Apply by ${shortDate(task.deadline)}`;
  if (task.executionDeadlineDays)
    return `${task.executionDeadlineDays} ${task.executionDeadlineDays === 1 ? 'day' : 'days'} to do`;
  return 'No deadline';
}
