import { useTranslation } from 'react-i18next';
import { type Application, api, type Task } from '../api';
import type { WorkerTaskState } from '../labels';
import { Empty, ErrorNote, Loading, Section, useLoad } from '../ui';
import { stateOf, TaskCard } from './TaskCard';

/** The worker's tasks grouped by what they are to the worker now, in the order they matter. */
const GROUPS: WorkerTaskState[] = [
  'changesAsked',
  'assigned',
  'inProgress',
  'inDispute',
  'inReview',
  'completed',
  'cancelled',
];

/**
 * A task known only from an application (a task someone else holds now is not readable by this
 * worker): enough for its page to say the truth about it.
 */
export function applicationTask(application: Application): Task {
  return {
    id: application.taskId,
    title: application.task?.title ?? '',
    description: '',
    reward: application.task?.reward ?? '0',
    currency: application.task?.currency ?? 'TON',
    status: application.task?.status ?? 'CANCELLED',
    executionDeadlineDays: null,
    executionDeadline: null,
    createdAt: '',
    agent: { id: '', name: null },
    yourApplication: application.status,
  };
}

/** The worker's tasks by state, then the applications still open or answered with a no. */
export function MyTasksScreen({ onOpen }: { onOpen: (task: Task, fromApplication?: boolean) => void }) {
  const { t } = useTranslation();
  const mine = useLoad(() => api<{ tasks: Task[] }>('GET', '/worker/assignments?limit=100'));
  const applications = useLoad(() =>
    api<{ applications: Application[] }>('GET', '/worker/applications?limit=100'),
  );
  if (mine.loading && !mine.data) return <Loading label={t('tasks.loadingMine')} />;
  const tasks = mine.data?.tasks ?? [];
  // Accepted ones are tasks above; a declined offer is the worker's own "no": it leaves the lists.
  const waiting = (applications.data?.applications ?? []).filter(
    (a) => a.status !== 'ACCEPTED' && a.status !== 'DECLINED',
  );
  return (
    <>
      <ErrorNote error={mine.error} onRetry={mine.reload} />
      {mine.data && tasks.length === 0 ? <Empty>{t('tasks.noneMine')}</Empty> : null}
      {GROUPS.map((group) => {
        const inGroup = tasks.filter((task) => stateOf(task, 'ACCEPTED') === group);
        if (inGroup.length === 0) return null;
        return (
          <Section key={group} title={t(`tasks.group.${group}`)}>
            <ul className="list">
              {inGroup.map((task) => (
                <TaskCard key={task.id} task={task} onOpen={onOpen} application="ACCEPTED" />
              ))}
            </ul>
          </Section>
        );
      })}
      <Section title={t('tasks.applications')}>
        <ErrorNote error={applications.error} onRetry={applications.reload} />
        {applications.data && waiting.length === 0 ? <Empty>{t('tasks.noApplications')}</Empty> : null}
        {waiting.length > 0 ? (
          <ul className="list">
            {waiting.map((a) => (
              <TaskCard
                key={a.id}
                task={applicationTask(a)}
                application={a.status}
                onOpen={(task) => onOpen(task, true)}
                compact
              />
            ))}
          </ul>
        ) : null}
      </Section>
    </>
  );
}
