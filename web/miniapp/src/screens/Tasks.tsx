import { useMemo, useState } from 'react';
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
  const offers = useLoad(() => api<TaskPage>('GET', '/worker/offers?limit=50'));
  const [pages, setPages] = useState<TaskPage[]>([]);
  const first = useLoad(async () => {
    const page = await api<TaskPage>('GET', '/worker/tasks?limit=50');
    setPages([page]);
    return page;
  });
  const [search, setSearch] = useState('');
  const [minReward, setMinReward] = useState('');
  const [loadingMore, setLoadingMore] = useState(false);
  const [moreError, setMoreError] = useState<unknown>(null);
  const last = pages[pages.length - 1];

  const tasks = useMemo(() => {
    const words = search.trim().toLowerCase();
    const min = Number(minReward);
    return pages
      .flatMap((p) => p.tasks)
      .filter((t) => !words || `${t.title} ${t.description}`.toLowerCase().includes(words))
      .filter((t) => !minReward || Number(t.reward) >= min);
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
        <Section title="Offers for you">
          <ul className="list">
            {offers.data.tasks.map((t) => (
              <TaskCard key={t.id} task={t} onOpen={onOpen} note="Offer: answer it" />
            ))}
          </ul>
        </Section>
      ) : null}
      <ErrorNote error={offers.error} onRetry={offers.reload} />
      <Section title="Open tasks">
        <div className="filters">
          <label>
            <span>Search</span>
            <input
              type="search"
              value={search}
              onChange={(e) => setSearch(e.target.value)}
              placeholder="Title or words"
            />
          </label>
          <label>
            <span>Min reward, TON</span>
            <input
              type="number"
              inputMode="decimal"
              min="0"
              value={minReward}
              onChange={(e) => setMinReward(e.target.value)}
            />
          </label>
        </div>
        {first.loading && pages.length === 0 ? <Loading label="Loading tasks…" /> : null}
        <ErrorNote error={first.error} onRetry={first.reload} />
        {!first.loading && !first.error && tasks.length === 0 ? (
          <Empty>
            {pages.some((p) => p.tasks.length)
              ? 'No task matches these filters.'
              : 'No open tasks right now. New ones appear here.'}
          </Empty>
        ) : null}
        <ul className="list">
          {tasks.map((t) => (
            <TaskCard key={t.id} task={t} onOpen={onOpen} />
          ))}
        </ul>
        {last?.hasMore ? (
          <button type="button" className="secondary" onClick={loadMore} disabled={loadingMore}>
            {loadingMore ? 'Loading…' : 'Load more tasks'}
          </button>
        ) : null}
        <ErrorNote error={moreError} />
      </Section>
    </>
  );
}
