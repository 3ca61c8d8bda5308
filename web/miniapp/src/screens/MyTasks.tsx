import { type Application, api, type Task, type TaskStatus, ton } from '../api';
import { APPLICATION_LABEL, TASK_STATUS_LABEL } from '../labels';
import { Empty, ErrorNote, Loading, Section, useLoad } from '../ui';
import { TaskCard } from './TaskCard';

const GROUPS: { title: string; statuses: TaskStatus[] }[] = [
  { title: 'To do', statuses: ['ASSIGNED'] },
  { title: 'In progress', statuses: ['IN_PROGRESS'] },
  { title: 'In review', statuses: ['REVIEW'] },
  { title: 'Completed', statuses: ['COMPLETED'] },
  { title: 'Cancelled', statuses: ['CANCELLED'] },
];

/** The worker's tasks by status, then their applications. */
export function MyTasksScreen({
  onOpen,
  onOpenId,
}: {
  onOpen: (task: Task) => void;
  onOpenId: (id: string) => void;
}) {
  const mine = useLoad(() => api<{ tasks: Task[] }>('GET', '/worker/assignments?limit=100'));
  const applications = useLoad(() =>
    api<{ applications: Application[] }>('GET', '/worker/applications?limit=100'),
  );
  if (mine.loading && !mine.data) return <Loading label="Loading your tasks…" />;
  const tasks = mine.data?.tasks ?? [];
  const waiting = (applications.data?.applications ?? []).filter((a) => a.status !== 'ACCEPTED');
  return (
    <>
      <ErrorNote error={mine.error} onRetry={mine.reload} />
      {mine.data && tasks.length === 0 ? (
        <Empty>No tasks yet. Apply to open tasks, or wait for an offer.</Empty>
      ) : null}
      {GROUPS.map((group) => {
        const inGroup = tasks.filter((t) => group.statuses.includes(t.status));
        if (inGroup.length === 0) return null;
        return (
          <Section key={group.title} title={group.title}>
            <ul className="list">
              {inGroup.map((t) => (
                <TaskCard key={t.id} task={t} onOpen={onOpen} />
              ))}
            </ul>
          </Section>
        );
      })}
      <Section title="My applications">
        <ErrorNote error={applications.error} onRetry={applications.reload} />
        {applications.data && waiting.length === 0 ? <Empty>No applications waiting.</Empty> : null}
        <ul className="list">
          {waiting.map((a) => (
            <li key={a.id}>
              <button
                type="button"
                className="card"
                aria-label={`Open application for ${a.task?.title ?? a.taskId}`}
                onClick={() => onOpenId(a.taskId)}
              >
                <span className="card-row">
                  <strong className="card-title">{a.task?.title ?? a.taskId}</strong>
                  {a.task ? <span className="reward">{ton(a.task.reward)}</span> : null}
                </span>
                <span className="card-row muted small">
                  <span>{APPLICATION_LABEL[a.status]}</span>
                  <span>{a.task ? TASK_STATUS_LABEL[a.task.status] : ''}</span>
                </span>
              </button>
            </li>
          ))}
        </ul>
      </Section>
    </>
  );
}
