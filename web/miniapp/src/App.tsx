import { type ReactNode, useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, loadTask, type Task, type Worker } from './api';
import { onRefresh } from './freshness';
import { changeLanguage } from './i18n';
import { closeOverlay } from './native';
import { EarningsScreen } from './screens/Earnings';
import { FirstLaunch, firstLaunchDone } from './screens/FirstLaunch';
import { MyTasksScreen } from './screens/MyTasks';
import { ProfileScreen } from './screens/Profile';
import { TaskDetail, type TaskView } from './screens/TaskDetail';
import { TasksScreen } from './screens/Tasks';
import { UnreadBadge, useUnreadCount } from './screens/UnreadBadge';
import { WalletSection } from './screens/Wallet';
import { haptic, useBackButton, useDarkTheme } from './telegram';
import { ErrorNote, Loading } from './ui';

type Tab = 'tasks' | 'mine' | 'earnings' | 'profile';
const TABS: Tab[] = ['tasks', 'mine', 'earnings', 'profile'];

/** The tab bar's icons: inline, drawn in the text colour, named by the tab's label. */
const ICONS: Record<Tab, ReactNode> = {
  tasks: <path d="M4 6h16M4 12h16M4 18h10" />,
  mine: (
    <>
      <rect x="4" y="4" width="16" height="16" rx="3" />
      <path d="m8.5 12 2.5 2.5 4.5-5" />
    </>
  ),
  earnings: (
    <>
      <rect x="3" y="6" width="18" height="13" rx="2.5" />
      <path d="M3 10h18M16 14.5h2" />
    </>
  ),
  profile: (
    <>
      <circle cx="12" cy="8.5" r="3.5" />
      <path d="M5 20c1-3.6 3.8-5.5 7-5.5s6 1.9 7 5.5" />
    </>
  ),
};

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
  const { t } = useTranslation();
  const dark = useDarkTheme();
  const [me, setMe] = useState<Worker | null>(null);
  const [meError, setMeError] = useState<unknown>(null);
  const [tab, setTab] = useState<Tab>('tasks');
  const [open, setOpenTask] = useState<Task | null>(null);
  const [view, setView] = useState<TaskView>('task');
  // "Connect a wallet" started from this task: the wallet screen, then back to the task.
  const [walletFor, setWalletFor] = useState<Task | null>(null);
  const [welcome, setWelcome] = useState(false);
  const setOpen = useCallback((task: Task | null) => {
    setOpenTask(task);
    setView('task');
  }, []);
  // Kept as a message key and said at render: the deep link's effect must not depend on `t`.
  const [linkError, setLinkError] = useState<'app.linkGone' | 'app.linkFailed' | null>(null);

  const loadMe = useCallback(() => {
    setMeError(null);
    api<{ worker: Worker }>('GET', '/worker/me').then(({ worker }) => {
      // The profile's language (chosen, or Telegram's at sign-in) wins over the launch's guess.
      void changeLanguage(worker.language);
      setMe(worker);
      // First launch: what Handoff is, and what applying needs.
      if (!worker.headline && !worker.walletAddress && !firstLaunchDone(worker.id)) setWelcome(true);
    }, setMeError);
  }, []);
  useEffect(loadMe, [loadMe]);
  // The profile's and earnings' counters (tasks done, rating) follow the server too; a failed
  // quiet re-read keeps what is shown.
  useEffect(
    () =>
      onRefresh(() => {
        api<{ worker: Worker }>('GET', '/worker/me').then(
          ({ worker }) => setMe(worker),
          () => undefined,
        );
      }),
    [],
  );

  // Once per launch link. It once also ran whenever `t` changed, which the profile's language
  // does right after sign-in: the task was fetched again and reopened on the task view, so a
  // worker who had tapped "View the dispute" (or the chat) meanwhile was sent back to the task.
  // An answer that comes after the effect was cleaned up (React's StrictMode runs it twice in
  // development) is dropped: it too would reopen the task over what the worker did meanwhile.
  useEffect(() => {
    const id = linkedTaskId(startParam);
    if (!id) return;
    let current = true;
    findTask(id).then(
      (task) => {
        if (current) task ? setOpen(task) : setLinkError('app.linkGone');
      },
      () => {
        if (current) setLinkError('app.linkFailed');
      },
    );
    return () => {
      current = false;
    };
  }, [startParam, setOpen]);

  // A new screen starts at its top, not where the last one was scrolled to.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the screen changes
  useEffect(() => {
    window.scrollTo?.(0, 0);
  }, [open?.id, view, walletFor, tab]);

  useEffect(() => {
    document.documentElement.dataset.theme = dark ? 'dark' : 'light';
  }, [dark]);

  // Back closes an open image viewer first; then it goes from the wallet to its task, from
  // "Submit work", the chat or the dispute to the task, and from the task to the list.
  useBackButton(
    walletFor
      ? () => setWalletFor(null)
      : open
        ? () => closeOverlay() || (view === 'task' ? setOpen(null) : setView('task'))
        : null,
  );
  const unread = useUnreadCount();

  if (meError) {
    return (
      <main className="app content">
        <ErrorNote error={meError} onRetry={loadMe} />
      </main>
    );
  }
  if (!me) {
    return (
      <main className="app content">
        <Loading label={t('app.signingIn')} />
      </main>
    );
  }

  const refreshMe = () =>
    api<{ worker: Worker }>('GET', '/worker/me').then(({ worker }) => setMe(worker), setMeError);

  if (welcome && !open) {
    return (
      <div className="app">
        <main className="content bare">
          <FirstLaunch
            me={me}
            onSaved={setMe}
            onDone={(next) => {
              setWelcome(false);
              setTab(next);
            }}
          />
        </main>
      </div>
    );
  }

  if (walletFor) {
    return (
      <div className="app">
        <main className="content bare">
          <h1 className="screen-title">{t('wallet.connectTitle')}</h1>
          <p className="lead">{t('wallet.forTask', { title: walletFor.title })}</p>
          <WalletSection
            me={me}
            onSaved={(worker) => {
              setMe(worker);
              // The wallet is there: straight back to the task the worker wanted to apply to.
              if (worker.walletAddress) {
                const back = walletFor;
                setWalletFor(null);
                setOpen(back);
              }
            }}
          />
        </main>
      </div>
    );
  }

  return (
    <div className="app">
      <main className={open ? 'content bare' : 'content'}>
        {linkError ? <ErrorNote error={t(linkError)} /> : null}
        {open ? (
          <TaskDetail
            key={open.id}
            task={open}
            me={me}
            view={view}
            onView={setView}
            onChanged={refreshMe}
            onNeedWallet={(task) => setWalletFor(task)}
            onBlocked={() => {
              setView('task');
              setOpen(null);
            }}
          />
        ) : (
          <>
            <h1 className="screen-title">{t(`tabs.${tab}`)}</h1>
            {tab === 'tasks' ? <TasksScreen onOpen={setOpen} /> : null}
            {tab === 'mine' ? <MyTasksScreen onOpen={(task) => setOpen(task)} /> : null}
            {tab === 'earnings' ? <EarningsScreen me={me} /> : null}
            {tab === 'profile' ? <ProfileScreen me={me} onSaved={setMe} /> : null}
          </>
        )}
      </main>
      {open ? null : (
        <div className="tabs" role="tablist" aria-label={t('tabs.label')}>
          {TABS.map((id) => (
            <button
              key={id}
              type="button"
              role="tab"
              aria-selected={tab === id}
              aria-describedby={id === 'mine' && unread > 0 ? 'unread-total' : undefined}
              className={tab === id ? 'tab active' : 'tab'}
              onClick={() => {
                if (tab !== id) haptic.selection();
                setLinkError(null);
                setTab(id);
              }}
            >
              <svg
                viewBox="0 0 24 24"
                width="24"
                height="24"
                aria-hidden="true"
                fill="none"
                stroke="currentColor"
                strokeWidth="1.8"
                strokeLinecap="round"
                strokeLinejoin="round"
              >
                {ICONS[id]}
              </svg>
              <span>{t(`tabs.${id}`)}</span>
              {id === 'mine' ? <UnreadBadge count={unread} id="unread-total" /> : null}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
