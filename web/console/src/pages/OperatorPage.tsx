import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { ErrorLine } from '../App';
import { adminApi, type Json } from '../api';
import { Stat } from '../components';
import {
  LEDGER_STATUS_LABEL,
  LEDGER_TYPE_LABEL,
  labelOf,
  NOTIFICATION_STATUS_LABEL,
  wordsOf,
} from '../labels';
import { formatAmount, formatUnitsAmount } from '../ton';
import { when } from '../trust';
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
            <Stat label="Agents" value={o.agents.count} target="op-agents" />
            <Stat label="Unmatched deposits" value={o.deposits.unmatched} target="op-unmatched" />
            <Stat label="Pending transfers" value={o.transfers.pending} target="op-transfers" />
            <Stat label="Failed transfers" value={o.transfers.failed} target="op-transfers" />
            <Stat label="Ledger audit" value={o.audit.ok ? 'OK' : `${o.audit.problems} problems`} />
            <Stat label="Approvals waiting for owners" value={o.approvals?.pending ?? '—'} />
            <Stat
              label="Reconciliation"
              value={reconciliationSummary(reconciliation, reconciling)}
              target="op-reconciliation"
            />
            <Stat
              label="Watcher lag"
              value={chain?.watcher ? (chain.watcher.lagSec ?? '—') : 'n/a'}
              unit={chain?.watcher?.lagSec != null ? 's' : undefined}
              target="op-chain"
            />
            <Stat label="Webhooks pending" value={o.webhooks.pending} />
            <Stat label="Webhooks failed" value={o.webhooks.failed} />
            <Stat label="Notifications pending" value={o.notifications.pending} target="op-notifications" />
            <Stat label="Notifications failed" value={o.notifications.failed} target="op-notifications" />
          </div>
          {(o.money ?? []).map((m: Json) => (
            <MoneyTiles key={m.currency} money={m} chain={chain} />
          ))}
          <section className="card" aria-labelledby="op-agents">
            <h2 id="op-agents">Agents by balance</h2>
            <table aria-label="Agents and balances" className="reflow">
              <thead>
                <tr>
                  <th>Agent</th>
                  <th>Owner wallet</th>
                  <th className="num">Balance</th>
                  <th className="num">Locked in tasks</th>
                  <th className="num">Deposited</th>
                  <th className="num">Spent</th>
                </tr>
              </thead>
              <tbody>
                {o.topAgents.map((a: Json) => (
                  <tr key={a.id}>
                    <td data-label="Agent">
                      <NameAndId name={a.name} id={a.id} />
                    </td>
                    <td data-label="Owner wallet" className="breakable">
                      {a.ownerWallet ? <code>{a.ownerWallet}</code> : '(operator)'}
                    </td>
                    <td data-label="Balance" className="num">
                      <BothCurrencies ton={a.balance} usdt={a.usdt?.balance} />
                    </td>
                    <td data-label="Locked in tasks" className="num">
                      <BothCurrencies ton={a.lockedByTasks} usdt={a.usdt?.lockedByTasks} />
                    </td>
                    <td data-label="Deposited" className="num">
                      <BothCurrencies ton={a.deposited} usdt={a.usdt?.deposited} />
                    </td>
                    <td data-label="Spent" className="num">
                      <BothCurrencies ton={a.spent} usdt={a.usdt?.spent} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
          <section className="card" aria-labelledby="op-deposits">
            <h2 id="op-deposits">Recent deposits</h2>
            <table aria-label="Recent deposits" className="reflow">
              <thead>
                <tr>
                  <th>Agent</th>
                  <th className="num">Amount</th>
                  <th>From</th>
                  <th>Chain transaction</th>
                  <th>When</th>
                </tr>
              </thead>
              <tbody>
                {o.recentDeposits.map((d: Json) => (
                  <tr key={d.id}>
                    <td data-label="Agent">
                      <NameAndId name={d.agentName} id={d.agentId} />
                    </td>
                    <td data-label="Amount" className="num">
                      {formatAmount(d.amount, d.currency ?? 'TON')}
                    </td>
                    <td data-label="From" className="breakable">
                      {d.fromAddress ? <code>{d.fromAddress}</code> : '—'}
                    </td>
                    <td data-label="Chain transaction">
                      <code>{d.txHash ? `${d.txHash.slice(0, 12)}…` : '—'}</code>
                    </td>
                    <td data-label="When">{when(d.createdAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
          <UnmatchedDeposits token={token} deposits={unmatched} onChange={load} />
          <section className="card" aria-labelledby="op-transfers">
            <h2 id="op-transfers">Pending and failed transfers</h2>
            <table aria-label="Pending and failed transfers" className="reflow">
              <thead>
                <tr>
                  <th>Transfer</th>
                  <th>Kind</th>
                  <th className="num">Amount</th>
                  <th>To</th>
                  <th>Status</th>
                  <th className="num">Attempts</th>
                  <th>Last error</th>
                </tr>
              </thead>
              <tbody>
                {o.openTransfers.map((t: Json) => (
                  <tr key={t.id}>
                    <td data-label="Transfer" className="breakable">
                      <code>{t.id}</code>
                    </td>
                    <td data-label="Kind">{labelOf(LEDGER_TYPE_LABEL, t.kind)}</td>
                    <td data-label="Amount" className="num">
                      {formatAmount(t.amount, t.currency ?? 'TON')}
                    </td>
                    <td data-label="To" className="breakable">
                      <code>{t.toAddress}</code>
                    </td>
                    <td data-label="Status">{labelOf(LEDGER_STATUS_LABEL, t.status)}</td>
                    <td data-label="Attempts" className="num">
                      {t.attempts}
                    </td>
                    <td data-label="Last error" className="breakable">
                      {t.lastError ?? '—'}
                    </td>
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
        <table aria-label="Notifications to workers" className="reflow">
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
                <td data-label="Kind">{wordsOf(n.kind)}</td>
                <td data-label="Worker">
                  <NameAndId name={n.workerName ?? null} id={n.workerId} />
                </td>
                <td data-label="Status">{labelOf(NOTIFICATION_STATUS_LABEL, n.status)}</td>
                <td data-label="When">{when(n.createdAt)}</td>
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

/**
 * One currency's money across live agents (GET /admin/overview `money`), and the hot wallet's
 * balance in it (GET /admin/chain): every amount with its own currency, by the one formatter,
 * so a USDT sum never reads as TON.
 */
function MoneyTiles({ money, chain }: { money: Json; chain: Json | null }) {
  const currency = money.currency === 'USDT' ? 'USDT' : 'TON';
  const id = `op-money-${currency.toLowerCase()}`;
  const amount = (value: string) => formatAmount(value, currency);
  const hotWallet =
    currency === 'TON'
      ? chain?.hotWallet?.balanceNano != null
        ? formatUnitsAmount(chain.hotWallet.balanceNano, 'TON')
        : '—'
      : chain?.usdt?.hotBalance != null
        ? formatUnitsAmount(chain.usdt.hotBalance, 'USDT')
        : '—';
  return (
    <section className="card" aria-labelledby={id}>
      <h2 id={id}>Money in {currency}</h2>
      <div className="stats money">
        <Stat label="Agent balances" value={amount(money.balance)} target="op-agents" />
        <Stat label="Escrowed in tasks" value={amount(money.locked)} target="op-agents" />
        <Stat label="Deposited" value={amount(money.deposited)} target="op-deposits" />
        <Stat label="Spent" value={amount(money.spent)} target="op-agents" />
        <Stat label="Paid out to workers" value={amount(money.paidOut)} target="op-transfers" />
        <Stat label="Fees earned" value={amount(money.fees)} />
        <Stat label="Hot wallet" value={hotWallet} target="op-chain" />
      </div>
    </section>
  );
}

/** An agent's amount in TON over the same amount in USDT, each with its currency. */
function BothCurrencies({ ton, usdt }: { ton: string; usdt: string | undefined }) {
  return (
    <>
      <div>{formatAmount(ton, 'TON')}</div>
      <div>{formatAmount(usdt ?? '0', 'USDT')}</div>
    </>
  );
}

/** A name with its id in small type beside it; just the id when there is no name. */
function NameAndId({ name, id }: { name: string | null; id: string }) {
  return name ? (
    <span>
      {name} <code className="muted">{id}</code>
    </span>
  ) : (
    <code>{id}</code>
  );
}
