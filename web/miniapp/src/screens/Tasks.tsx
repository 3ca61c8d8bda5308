import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, type Task } from '../api';
import { Empty, ErrorNote, Loading, Section, useLoad } from '../ui';
import { TaskCard } from './TaskCard';

interface TaskPage {
  tasks: Task[];
  nextCursor: string | null;
  hasMore: boolean;
}

/** Offers waiting for an answer, then the open tasks with filters. */
export function TasksScreen({ onOpen }: { onOpen: (task: Task) => void }) {
  const { t } = useTranslation();
  const offers = useLoad(() => api<TaskPage>('GET', '/worker/offers?limit=50'));
  const [pages, setPages] = useState<TaskPage[]>([]);
  const first = useLoad(async () => {
    const page = await api<TaskPage>('GET', '/worker/tasks?limit=50');
    // A quiet re-read (freshness.ts) replaces the first page and keeps the pages loaded after it.
    setPages((loaded) => [page, ...loaded.slice(1)]);
    return page;
  });
  const [search, setSearch] = useState('');
  const [minReward, setMinReward] = useState('');
  const [loadingMore, setLoadingMore] = useState(false);
  const [moreError, setMoreError] = useState<unknown>(null);
  const last = pages[pages.length - 1];

  const tasks = useMemo(() => {
    const words = search.trim().toLowerCase();
    const min = Number(minReward.replace(',', '.'));
    return (
      pages
        .flatMap((p) => p.tasks)
        // A task can sit on the re-read first page and on a later one loaded before it.
        .filter((task, i, all) => all.findIndex((other) => other.id === task.id) === i)
        .filter((task) => !words || `${task.title} ${task.description}`.toLowerCase().includes(words))
        // The minimum is in TON: a USDT reward is not compared with it (the two never mix).
        .filter((task) => !minReward || task.currency !== 'TON' || Number(task.reward) >= min)
    );
  }, [pages, search, minReward]);

  const loadMore = async () => {
    if (!last?.nextCursor) return;
    setLoadingMore(true);
    setMoreError(null);
    try {
      const page = await api<TaskPage>(
        'GET',
        `/worker/tasks?limit=50&cursor=${encodeURIComponent(last.nextCursor)}`,
      );
      setPages((p) => [...p, page]);
    } catch (error) {
      setMoreError(error);
    } finally {
      setLoadingMore(false);
    }
  };

  return (
    <>
      {offers.data && offers.data.tasks.length > 0 ? (
        <Section title={t('tasks.offers')} footer={t('tasks.offersFooter')}>
          <ul className="list">
            {offers.data.tasks.map((task) => (
              <TaskCard key={task.id} task={task} onOpen={onOpen} />
            ))}
          </ul>
        </Section>
      ) : null}
      <ErrorNote error={offers.error} onRetry={offers.reload} />
      <div className="filters">
        <label>
          <span className="sr-only">{t('tasks.search')}</span>
          <input
            type="search"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            placeholder={t('tasks.searchPlaceholder')}
          />
        </label>
        <label>
          <span className="sr-only">{t('tasks.minReward')}</span>
          <input
            type="text"
            inputMode="decimal"
            value={minReward}
            onChange={(e) => setMinReward(e.target.value.replace(/[^0-9.,]/g, ''))}
            placeholder={t('tasks.minRewardPlaceholder')}
          />
        </label>
      </div>
      <Section title={t('tasks.open')}>
        {first.loading && pages.length === 0 ? <Loading label={t('tasks.loading')} /> : null}
        <ErrorNote error={first.error} onRetry={first.reload} />
        {!first.loading && !first.error && tasks.length === 0 ? (
          <Empty>{pages.some((p) => p.tasks.length) ? t('tasks.noMatch') : t('tasks.none')}</Empty>
        ) : null}
        {tasks.length > 0 ? (
          <ul className="list">
            {tasks.map((task) => (
              <TaskCard key={task.id} task={task} onOpen={onOpen} />
            ))}
          </ul>
        ) : null}
      </Section>
      {last?.hasMore ? (
        <button type="button" className="secondary wide" onClick={loadMore} disabled={loadingMore}>
          {loadingMore ? t('common.loading') : t('tasks.loadMore')}
        </button>
      ) : null}
      <ErrorNote error={moreError} />
    </>
  );
}
