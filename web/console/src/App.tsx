import { useCallback, useEffect, useState } from 'react';
import { api, type Json, onSessionEnded, setCsrfToken } from './api';
import { AgentPage } from './pages/AgentPage';
import { AgentsPage } from './pages/AgentsPage';
import { type ApprovalsData, ApprovalsPage } from './pages/ApprovalsPage';
import { BatchPage } from './pages/Batches';
import { KeyPage } from './pages/KeyPage';
import { OperatorPage } from './pages/OperatorPage';
import { SignIn } from './pages/SignIn';
import { TaskPage } from './pages/TaskPage';

export interface Session {
  owner: { id: string; walletAddress: string };
  csrfToken: string;
  expiresAt: string;
  network: string;
}

const readHash = () => window.location.hash.replace(/^#\/?/, '').split('/').filter(Boolean);

/** Routes live in the hash (#/agents/agt_...), so the server serves one page for all of them. */
function useHashRoute(): string[] {
  const [parts, setParts] = useState(readHash);
  useEffect(() => {
    const onChange = () => setParts(readHash());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return parts;
}

export function App() {
  const route = useHashRoute();
  const [session, setSession] = useState<Session | null | undefined>(undefined);

  useEffect(() => {
    onSessionEnded(() => setSession(null));
    api('GET', '/session')
      .then((s: Session) => {
        setCsrfToken(s.csrfToken);
        setSession(s);
      })
      .catch(() => setSession(null));
  }, []);

  const signedIn = (s: Session) => {
    setCsrfToken(s.csrfToken);
    setSession(s);
  };

  if (route[0] === 'operator') return <OperatorPage route={route.slice(1)} />;
  if (session === undefined) return <p className="page">Loading…</p>;
  if (session === null) return <SignIn onSignedIn={signedIn} />;
  return <SignedIn route={route} session={session} onSignedOut={() => setSession(null)} />;
}

/** The approvals queue is re-read this often, so the header's badge shows a new one without a reload. */
const APPROVALS_REFRESH_MS = 15_000;

/**
 * The owner's approvals (issue 38), loaded once for the whole console: the header's badge counts
 * the queue and the Approvals page lists it, so a decision there updates both.
 */
function useApprovals() {
  const [data, setData] = useState<ApprovalsData | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(
    () =>
      api('GET', '/approvals')
        .then((d: ApprovalsData) => {
          setData(d);
          setError(null);
        })
        .catch((e) => setError(e.message)),
    [],
  );
  useEffect(() => {
    void load();
    const timer = setInterval(load, APPROVALS_REFRESH_MS);
    return () => clearInterval(timer);
  }, [load]);
  return { data, error, load };
}

function SignedIn({
  route,
  session,
  onSignedOut,
}: {
  route: string[];
  session: Session;
  onSignedOut: () => void;
}) {
  const approvals = useApprovals();
  const { load } = approvals;
  // Opening the Approvals page reads the queue afresh rather than waiting for the next round.
  useEffect(() => {
    if (route[0] === 'approvals') void load();
  }, [route, load]);
  return (
    <div className="page">
      <Header
        session={session}
        onSignedOut={onSignedOut}
        section={route[0] === 'approvals' ? 'approvals' : 'agents'}
        waiting={approvals.data?.approvals.length ?? 0}
      />
      {route[0] === 'approvals' ? (
        <ApprovalsPage data={approvals.data} error={approvals.error} onChanged={load} />
      ) : (
        <Main route={route} session={session} />
      )}
    </div>
  );
}

function Main({ route, session }: { route: string[]; session: Session }) {
  const [first, agentId, section, taskId] = route;
  if (first === 'agents' && agentId && section === 'keys' && taskId) {
    return <KeyPage key={`${agentId}/keys/${taskId}`} agentId={agentId} keyId={taskId} />;
  }
  if (first === 'agents' && agentId && section === 'tasks' && taskId) {
    return (
      <TaskPage key={`${agentId}/${taskId}`} agentId={agentId} taskId={taskId} network={session.network} />
    );
  }
  if (first === 'agents' && agentId && section === 'batches' && taskId) {
    return <BatchPage key={`${agentId}/${taskId}`} agentId={agentId} batchId={taskId} />;
  }
  if (first === 'agents' && agentId)
    return <AgentPage key={agentId} agentId={agentId} network={session.network} />;
  return <AgentsPage />;
}

function Header({
  session,
  onSignedOut,
  section,
  waiting,
}: {
  session: Session;
  onSignedOut: () => void;
  section: 'agents' | 'approvals';
  /** Pending approvals: the badge on the Approvals link. */
  waiting: number;
}) {
  const signOut = async () => {
    await api('POST', '/auth/logout').catch(() => undefined);
    onSignedOut();
  };
  return (
    <header className="header">
      <a href="#/">
        <strong>Handoff console</strong>
      </a>
      <nav className="row pages" aria-label="Console pages">
        <a href="#/" aria-current={section === 'agents' ? 'page' : undefined}>
          Agents
        </a>
        <a href="#/approvals" aria-current={section === 'approvals' ? 'page' : undefined}>
          Approvals
          {waiting > 0 ? (
            <span className="badge warn count">
              {waiting}
              <span className="sr-only"> waiting</span>
            </span>
          ) : null}
        </a>
      </nav>
      <span className="muted" title={session.owner.walletAddress}>
        {short(session.owner.walletAddress)} · {session.network}
      </span>
      <button type="button" onClick={signOut}>
        Sign out
      </button>
    </header>
  );
}

export const short = (s: string) => (s.length > 16 ? `${s.slice(0, 6)}…${s.slice(-6)}` : s);

/** Shows an error from the last action, with role=alert so it is announced. */
export function ErrorLine({ error }: { error: string | null }) {
  return error ? (
    <p role="alert" className="error">
      {error}
    </p>
  ) : null;
}

export type { Json };
