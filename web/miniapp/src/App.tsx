import { useCallback, useEffect, useState } from 'react';
import { api, loadTask, type Task, type Worker } from './api';
import { changeLanguage } from './i18n';
import { closeOverlay } from './native';
import { EarningsScreen } from './screens/Earnings';
import { MyTasksScreen } from './screens/MyTasks';
import { ProfileScreen } from './screens/Profile';
import { TaskDetail, type TaskView } from './screens/TaskDetail';
import { TasksScreen } from './screens/Tasks';
import { UnreadBadge, useUnreadCount } from './screens/UnreadBadge';
import { useBackButton, useDarkTheme } from './telegram';
import { ErrorNote, Loading } from './ui';

type Tab = 'tasks' | 'mine' | 'earnings' | 'profile';
const TABS: { id: Tab; label: string }[] = [
  { id: 'tasks', label: 'Tasks' },
  { id: 'mine', label: 'My tasks' },
  { id: 'earnings', label: 'Earnings' },
  { id: 'profile', label: 'Profile' },
];

/** A deep link (`startapp=task_<id>`, from a notification) names a task to open. */
function linkedTaskId(startParam: string | null): string | null {
  const match = /^(?:task|offer)_([A-Za-z0-9_]{1,60})$/.exec(startParam ?? '');
  return match ? (match[1] as string) : null;
}

/**
 * Finds a task the worker can see: one of theirs or an open one (its own view, which also has
 * cancelled tasks with a dispute's decision), else an offer or a list entry.
 */
async function findTask(id: string): Promise<Task | null> {
  const own = await loadTask(id).catch(() => null);
  if (own) return own;
  for (const path of [
    '/worker/offers?limit=100',
    '/worker/assignments?limit=100',
    '/worker/tasks?limit=100',
  ]) {
    const { tasks } = await api<{ tasks: Task[] }>('GET', path);
    const found = tasks.find((t) => t.id === id);
    if (found) return found;
  }
  return null;
}

export function App({ startParam }: { startParam: string | null }) {
  const dark = useDarkTheme();
  const [me, setMe] = useState<Worker | null>(null);
  const [meError, setMeError] = useState<unknown>(null);
  const [tab, setTab] = useState<Tab>('tasks');
  const [open, setOpenTask] = useState<Task | null>(null);
  const [view, setView] = useState<TaskView>('task');
  const setOpen = useCallback((task: Task | null) => {
    setOpenTask(task);
    setView('task');
  }, []);
  const [linkError, setLinkError] = useState<string | null>(null);

  const loadMe = useCallback(() => {
    setMeError(null);
    api<{ worker: Worker }>('GET', '/worker/me').then(({ worker }) => {
      // The profile's language (chosen, or Telegram's at sign-in) wins over the launch's guess.
      void changeLanguage(worker.language);
      setMe(worker);
      // First run: the profile comes first, so agents can find the new worker.
      if (!worker.headline && !worker.walletAddress) setTab('profile');
    }, setMeError);
  }, []);
  useEffect(loadMe, [loadMe]);

  useEffect(() => {
    const id = linkedTaskId(startParam);
    if (!id) return;
    findTask(id).then(
      (task) => (task ? setOpen(task) : setLinkError('That task is no longer available.')),
      () => setLinkError('Could not open the linked task.'),
    );
  }, [startParam, setOpen]);

  // A new screen starts at its top, not where the last one was scrolled to.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the screen changes
  useEffect(() => {
    window.scrollTo?.(0, 0);
  }, [open?.id, view]);

  useEffect(() => {
    document.documentElement.dataset.theme = dark ? 'dark' : 'light';
  }, [dark]);

  // Back goes from "Submit work" or the dispute to the task, and from the task to the list.
  useBackButton(open ? () => closeOverlay() || (view === 'task' ? setOpen(null) : setView('task')) : null);
  const unread = useUnreadCount();

  if (meError) {
    return (
      <main className="app">
        <ErrorNote error={meError} onRetry={loadMe} />
      </main>
    );
  }
  if (!me) {
    return (
      <main className="app">
        <Loading label="Signing in…" />
      </main>
    );
  }

  const refreshMe = () =>
    api<{ worker: Worker }>('GET', '/worker/me').then(({ worker }) => setMe(worker), setMeError);

  return (
    <div className="app">
      <header className="top">
        <span className="brand">Handoff</span>
        <span className="muted small">{me.firstName}</span>
      </header>
      <main className="content">
        {linkError ? <ErrorNote error={linkError} /> : null}
        {open ? (
          <TaskDetail
            key={open.id}
            task={open}
            me={me}
            view={view}
            onView={setView}
            onChanged={refreshMe}
            onNeedWallet={() => {
              setOpen(null);
              setTab('profile');
            }}
          />
        ) : (
          <>
            <h1 className="screen-title">{TABS.find((t) => t.id === tab)?.label}</h1>
            {tab === 'profile' && !me.headline ? (
              <p className="welcome">
                Welcome, {me.firstName}! Set up your profile and wallet, then apply to tasks agents post.
              </p>
            ) : null}
            {tab === 'tasks' ? <TasksScreen onOpen={setOpen} /> : null}
            {tab === 'mine' ? (
              <MyTasksScreen
                onOpen={setOpen}
                onOpenId={(id) =>
                  findTask(id).then((t) => (t ? setOpen(t) : setLinkError('That task is closed.')))
                }
              />
            ) : null}
            {tab === 'earnings' ? <EarningsScreen me={me} /> : null}
            {tab === 'profile' ? <ProfileScreen me={me} onSaved={setMe} /> : null}
          </>
        )}
      </main>
      {open ? null : (
        <div className="tabs" role="tablist" aria-label="Sections">
          {TABS.map((t) => (
            <button
              key={t.id}
              type="button"
              role="tab"
              aria-selected={tab === t.id}
              aria-describedby={t.id === 'mine' && unread > 0 ? 'unread-total' : undefined}
              className={tab === t.id ? 'tab active' : 'tab'}
              onClick={() => {
                setLinkError(null);
                setTab(t.id);
              }}
            >
              {t.label}
              {t.id === 'mine' ? <UnreadBadge count={unread} id="unread-total" /> : null}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
