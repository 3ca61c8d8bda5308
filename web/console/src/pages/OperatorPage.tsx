import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { ErrorLine } from '../App';
import { adminApi, type Json } from '../api';
import { Stat } from '../components';
import { ChainStatus, type Reconciliation, ReconciliationCard, UnmatchedDeposits } from './OperatorChain';
import { DisputeQueue, OperatorDispute } from './OperatorDisputes';

const TOKEN_KEY = 'handoff-admin-token';

/**
 * Operator pages behind ADMIN_TOKEN: money and health at a glance, and the dispute queue. The
 * token stays in this tab. `route` is what follows #/operator (`disputes`, `disputes/<id>`).
 */
export function OperatorPage({ route }: { route: string[] }) {
  const [token, setToken] = useState(() => sessionStorage.getItem(TOKEN_KEY) ?? '');
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<string | null>(null);
  const close = useCallback(() => {
    sessionStorage.removeItem(TOKEN_KEY);
    setToken('');
  }, []);
  const rejected = useCallback(
    (e: { message: string; status?: number }) => {
      setError(e.message);
      if (e.status === 401) close();
    },
    [close],
  );

  const signIn = (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    sessionStorage.setItem(TOKEN_KEY, draft);
    setToken(draft);
  };

  if (!token) {
    return (
      <main className="page narrow">
        <h1>Operator</h1>
        <form onSubmit={signIn} className="row">
          <label>
            Admin token{' '}
            <input type="password" value={draft} onChange={(e) => setDraft(e.target.value)} required />
          </label>
          <button type="submit" className="primary">
            Open operator pages
          </button>
        </form>
        <ErrorLine error={error} />
        <p>
          <a href="#/">Owner console</a>
        </p>
      </main>
    );
  }
  const [section, id] = route;
  if (section === 'disputes') {
    return (
      <main className="page">
        <OperatorHeader section="disputes" note={null} onClose={close} />
        <ErrorLine error={error} />
        {id ? (
          <OperatorDispute token={token} disputeId={id} onRejected={rejected} />
        ) : (
          <DisputeQueue token={token} onRejected={rejected} />
        )}
      </main>
    );
  }
  return <OperatorOverview token={token} error={error} onRejected={rejected} onClose={close} />;
}

/** The operator pages' header: where you are, the other pages, and closing (forgets the token). */
function OperatorHeader({
  section,
  note,
  onClose,
}: {
  section: 'overview' | 'disputes';
  note: string | null;
  onClose: () => void;
}) {
  return (
    <header className="header">
      <strong>Handoff operator</strong>
      <nav className="row" aria-label="Operator pages">
        <a href="#/operator" aria-current={section === 'overview' ? 'page' : undefined}>
          Money and health
        </a>
        <a href="#/operator/disputes" aria-current={section === 'disputes' ? 'page' : undefined}>
          Disputes
        </a>
      </nav>
      {note !== null ? <span className="muted">{note}</span> : null}
      <button type="button" onClick={onClose}>
        Close
      </button>
    </header>
  );
}

function OperatorOverview({
  token,
  error,
  onRejected,
  onClose,
}: {
  token: string;
  error: string | null;
  onRejected: (e: { message: string; status?: number }) => void;
  onClose: () => void;
}) {
  const [overview, setOverview] = useState<Json | null>(null);
  const [notifications, setNotifications] = useState<Json[]>([]);
  const [chain, setChain] = useState<Json | null>(null);
  const [unmatched, setUnmatched] = useState<Json[]>([]);
  const [reconciliation, setReconciliation] = useState<Reconciliation>(null);
  const [reconciling, setReconciling] = useState(false);

  const load = useCallback(() => {
    if (!token) return;
    adminApi(token, '/admin/overview').then(setOverview).catch(onRejected);
    adminApi(token, '/admin/chain')
      .then(setChain)
      .catch(() => undefined);
    adminApi(token, '/admin/deposits/unmatched?status=open')
      .then((r) => setUnmatched(r.deposits))
      .catch(() => undefined);
    adminApi(token, '/admin/notifications?limit=20')
      .then((r) => setNotifications(r.notifications))
      .catch(() => undefined);
  }, [token, onRejected]);

  // Reconciliation reads the wallet's whole history from the provider: once on opening and on
  // request, not with every refresh.
  const reconcile = useCallback(() => {
    if (!token) return;
    setReconciling(true);
    adminApi(token, '/admin/reconciliation')
      .then((result) => setReconciliation({ result }))
      .catch((e) => setReconciliation({ error: e.message }))
      .finally(() => setReconciling(false));
  }, [token]);

  useEffect(() => {
    load();
    reconcile();
    const timer = setInterval(load, 10_000);
    return () => clearInterval(timer);
  }, [load, reconcile]);

  const o = overview;
  return (
    <main className="page">
      <OperatorHeader
        section="overview"
        note={o ? `${o.network} · checked ${o.checkedAt.slice(11, 19)} UTC` : '…'}
        onClose={onClose}
      />
      <ErrorLine error={error} />
      {o ? (
        <>
          <div className="stats">
            <Stat label="Health" value={o.health.database === 'ok' ? 'OK' : 'DOWN'} />
            <Stat label="Agents" value={o.agents.count} />
            <Stat label="Agent balances" value={o.agents.balance} unit="TON" />
            <Stat label="Locked in tasks" value={o.agents.locked} unit="TON" />
            <Stat label="Deposited" value={o.agents.deposited} unit="TON" />
            <Stat label="Spent" value={o.agents.spent} unit="TON" />
            <Stat label="Hot wallet" value={o.chain.hotWalletBalance} unit="TON" />
            <Stat label="Unmatched deposits" value={o.deposits.unmatched} />
            <Stat label="Pending transfers" value={o.transfers.pending} />
            <Stat label="Failed transfers" value={o.transfers.failed} />
            <Stat label="Ledger audit" value={o.audit.ok ? 'OK' : `${o.audit.problems} problems`} />
            <Stat label="Reconciliation" value={reconciliationSummary(reconciliation, reconciling)} />
            <Stat
              label="Watcher lag"
              value={chain?.watcher ? (chain.watcher.lagSec ?? '—') : 'n/a'}
              unit={chain?.watcher?.lagSec != null ? 's' : undefined}
            />
            <Stat label="Webhooks pending" value={o.webhooks.pending} />
            <Stat label="Webhooks failed" value={o.webhooks.failed} />
            <Stat label="Notifications pending" value={o.notifications.pending} />
            <Stat label="Notifications failed" value={o.notifications.failed} />
          </div>
          <section className="card" aria-labelledby="op-agents">
            <h2 id="op-agents">Agents by balance</h2>
            <table aria-label="Agents and balances">
              <thead>
                <tr>
                  <th>Agent</th>
                  <th>Owner wallet</th>
                  <th>Balance</th>
                  <th>Locked</th>
                  <th>Deposited</th>
                  <th>Spent</th>
                </tr>
              </thead>
              <tbody>
                {o.topAgents.map((a: Json) => (
                  <tr key={a.id}>
                    <td>{a.name ?? a.id}</td>
                    <td>{a.ownerWallet ?? '(operator)'}</td>
                    <td>{a.balance}</td>
                    <td>{a.lockedByTasks}</td>
                    <td>{a.deposited}</td>
                    <td>{a.spent}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
          <section className="card" aria-labelledby="op-deposits">
            <h2 id="op-deposits">Recent deposits</h2>
            <table aria-label="Recent deposits">
              <thead>
                <tr>
                  <th>Agent</th>
                  <th>Amount</th>
                  <th>From</th>
                  <th>Chain transaction</th>
                  <th>When</th>
                </tr>
              </thead>
              <tbody>
                {o.recentDeposits.map((d: Json) => (
                  <tr key={d.id}>
                    <td>{d.agentId}</td>
                    <td>{d.amount} TON</td>
                    <td>{d.fromAddress ?? '—'}</td>
                    <td>
                      <code>{d.txHash ? `${d.txHash.slice(0, 12)}…` : '—'}</code>
                    </td>
                    <td>{d.createdAt.slice(0, 16).replace('T', ' ')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
          <UnmatchedDeposits token={token} deposits={unmatched} onChange={load} />
          <section className="card" aria-labelledby="op-transfers">
            <h2 id="op-transfers">Pending and failed transfers</h2>
            <table aria-label="Pending and failed transfers">
              <thead>
                <tr>
                  <th>Transfer</th>
                  <th>Kind</th>
                  <th>Amount</th>
                  <th>To</th>
                  <th>Status</th>
                  <th>Attempts</th>
                  <th>Last error</th>
                </tr>
              </thead>
              <tbody>
                {o.openTransfers.map((t: Json) => (
                  <tr key={t.id}>
                    <td>{t.id}</td>
                    <td>{t.kind}</td>
                    <td>{t.amount} TON</td>
                    <td>{t.toAddress}</td>
                    <td>{t.status}</td>
                    <td>{t.attempts}</td>
                    <td>{t.lastError ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {o.openTransfers.length === 0 ? (
              <p className="muted">None: every transfer is confirmed.</p>
            ) : null}
          </section>
          <ChainStatus chain={chain} />
          <ReconciliationCard reconciliation={reconciliation} running={reconciling} onRun={reconcile} />
        </>
      ) : null}
      <section className="card" aria-labelledby="op-notifications">
        <h2 id="op-notifications">Notifications to workers</h2>
        <table aria-label="Notifications to workers">
          <thead>
            <tr>
              <th>Kind</th>
              <th>Worker</th>
              <th>Status</th>
              <th>When</th>
            </tr>
          </thead>
          <tbody>
            {notifications.map((n: Json) => (
              <tr key={n.id}>
                <td>{n.kind}</td>
                <td>{n.workerId}</td>
                <td>{n.status}</td>
                <td>{n.createdAt.slice(0, 16).replace('T', ' ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {notifications.length === 0 ? <p className="muted">None sent yet.</p> : null}
      </section>
    </main>
  );
}

function reconciliationSummary(reconciliation: Reconciliation, running: boolean): string {
  if (running && !reconciliation) return '…';
  if (!reconciliation) return '—';
  if ('error' in reconciliation) return 'n/a';
  const { ok, differences } = reconciliation.result;
  return ok ? 'OK' : `${differences.length} differences`;
}
