import { useEffect, useState } from 'react';
import { api, type Json, onSessionEnded, setCsrfToken } from './api';
import { AgentPage } from './pages/AgentPage';
import { AgentsPage } from './pages/AgentsPage';
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
  return (
    <div className="page">
      <Header session={session} onSignedOut={() => setSession(null)} />
      <Main route={route} session={session} />
    </div>
  );
}

function Main({ route, session }: { route: string[]; session: Session }) {
  const [first, agentId, section, taskId] = route;
  if (first === 'agents' && agentId && section === 'tasks' && taskId) {
    return (
      <TaskPage key={`${agentId}/${taskId}`} agentId={agentId} taskId={taskId} network={session.network} />
    );
  }
  if (first === 'agents' && agentId)
    return <AgentPage key={agentId} agentId={agentId} network={session.network} />;
  return <AgentsPage />;
}

function Header({ session, onSignedOut }: { session: Session; onSignedOut: () => void }) {
  const signOut = async () => {
    await api('POST', '/auth/logout').catch(() => undefined);
    onSignedOut();
  };
  return (
    <header className="header">
      <a href="#/">
        <strong>Handoff console</strong>
      </a>
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
