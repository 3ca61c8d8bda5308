import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { ErrorLine } from '../App';
import { agentApi, api, type Json } from '../api';
import { NewKey, Stat, StatusBadge } from '../components';
import { DELIVERY_STATUS_LABEL, labelOf, TASK_STATUS_LABEL, taskStatusLabel } from '../labels';
import { currencyOf, formatAmount, formatTon } from '../ton';
import { when } from '../trust';
import { BatchList } from './Batches';
import { LowBalanceAlerts, LowBalanceNotice } from './LowBalance';
import { Onboarding, SdkQuickStart } from './Onboarding';
import { SpendingChart } from './SpendingChart';
import { TopUp } from './TopUp';
import { UsdtTopUp } from './UsdtTopUp';

const TASK_STATUSES = [
  '',
  'OPEN',
  'FUNDED',
  'OFFERED',
  'ASSIGNED',
  'IN_PROGRESS',
  'REVIEW',
  'COMPLETED',
  'CANCELLED',
];
/** The balance is re-read this often, so a deposit shows up once it is credited. */
const REFRESH_MS = 5_000;

export function AgentPage({ agentId }: { agentId: string; network: string }) {
  const [detail, setDetail] = useState<Json | null>(null);
  const [anyTask, setAnyTask] = useState<boolean | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    api('GET', `/agents/${agentId}`)
      .then(setDetail)
      .catch((e) => setError(e.message));
    agentApi(agentId, 'GET', '/agents/tasks?limit=1')
      .then((r) => setAnyTask(r.tasks.length > 0))
      .catch(() => undefined);
  }, [agentId]);
  useEffect(() => {
    load();
    const timer = setInterval(load, REFRESH_MS);
    return () => clearInterval(timer);
  }, [load]);

  if (!detail) return <ErrorLine error={error} />;
  const { agent } = detail;
  // USDT's figures when the service takes USDT or the agent ever had any: never added to TON's.
  const usdtMoney = agent.balances?.USDT;
  const usdt = detail.usdtDeposit || (usdtMoney && usdtMoney.deposited !== '0') ? usdtMoney : null;
  // A USDT alert is offered where USDT is (or one was set before).
  const alertCurrencies: ('TON' | 'USDT')[] =
    usdt || usdtMoney?.lowBalanceThreshold ? ['TON', 'USDT'] : ['TON'];
  return (
    <main>
      <p>
        <a href="#/">← All agents</a>
      </p>
      <h1>{agent.name ?? agent.id}</h1>
      <p className="muted">
        <code>{agent.id}</code>
      </p>
      <div className="stats">
        <Stat label="Balance" value={formatTon(agent.balance)} unit="TON" />
        <Stat label="Locked in tasks" value={formatTon(agent.lockedByTasks)} unit="TON" />
        <Stat label="Deposited" value={formatTon(agent.deposited)} unit="TON" />
        <Stat label="Spent" value={formatTon(agent.spent)} unit="TON" />
        {usdt ? (
          <>
            <Stat label="USDT balance" value={formatTon(usdt.balance)} unit="USDT" />
            <Stat label="USDT locked in tasks" value={formatTon(usdt.lockedByTasks)} unit="USDT" />
            <Stat label="USDT deposited" value={formatTon(usdt.deposited)} unit="USDT" />
            <Stat label="USDT spent" value={formatTon(usdt.spent)} unit="USDT" />
          </>
        ) : null}
      </div>
      <ErrorLine error={error} />
      <LowBalanceNotice balances={agent.balances} currencies={alertCurrencies} />
      {anyTask !== null ? (
        <Onboarding
          hasKey={detail.keys.some((k: Json) => !k.revokedAt)}
          toppedUp={agent.deposited !== '0' || (usdtMoney !== undefined && usdtMoney.deposited !== '0')}
          posted={anyTask}
        />
      ) : null}
      <Keys agentId={agentId} keys={detail.keys} onChange={load} />
      <TopUp agentId={agentId} deposit={detail.deposit} deposited={agent.deposited} onCredited={load} />
      {detail.usdtDeposit && usdt ? (
        <UsdtTopUp agentId={agentId} deposit={detail.usdtDeposit} deposited={usdt.deposited} />
      ) : null}
      <LowBalanceAlerts
        key={alertCurrencies.join()}
        agentId={agentId}
        balances={agent.balances}
        currencies={alertCurrencies}
        onChange={load}
      />
      <Webhook agentId={agentId} url={agent.webhookUrl} onChange={load} />
      <QuarantineNotice agentId={agentId} />
      <BatchList agentId={agentId} />
      <Tasks agentId={agentId} />
      <Deliveries agentId={agentId} />
      <Spending agentId={agentId} moneyMoved={`${agent.deposited}/${agent.spent}`} />
      <SdkQuickStart />
    </main>
  );
}

function Keys({ agentId, keys, onChange }: { agentId: string; keys: Json[]; onChange: () => void }) {
  const [name, setName] = useState('');
  const [created, setCreated] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const create = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      const r = await api('POST', `/agents/${agentId}/keys`, { name });
      setCreated(r.apiKey);
      setName('');
      onChange();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const revoke = async (key: Json) => {
    if (
      !window.confirm(`Revoke the key "${key.name ?? key.hint}"? Requests with it are refused from now on.`)
    )
      return;
    try {
      await api('POST', `/agents/${agentId}/keys/${key.id}/revoke`);
      onChange();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <section className="card" aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      {created ? <NewKey apiKey={created} onDone={() => setCreated(null)} /> : null}
      <table aria-label="API keys" className="reflow">
        <thead>
          <tr>
            <th>Name</th>
            <th>Key</th>
            <th>Created</th>
            <th>Last used</th>
            <th>Status</th>
          </tr>
        </thead>
        <tbody>
          {liveFirst(keys).map((k) => (
            <tr key={k.id} className={k.revokedAt ? 'revoked' : ''}>
              <td data-label="Name">
                <a
                  href={`#/agents/${agentId}/keys/${k.id}`}
                  title="Spend policy, spending and activity of this key"
                >
                  {k.name ?? '(unnamed)'}
                </a>
              </td>
              <td data-label="Key">
                <code>{k.hint}</code>
              </td>
              <td data-label="Created">{when(k.createdAt)}</td>
              <td data-label="Last used">{k.lastUsedAt ? when(k.lastUsedAt) : 'never'}</td>
              <td data-label="Status">
                {k.revokedAt ? (
                  `revoked ${k.revokedAt.slice(0, 10)}`
                ) : (
                  <button type="button" onClick={() => revoke(k)} aria-label={`Revoke ${k.name ?? k.hint}`}>
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form className="row" onSubmit={create} aria-label="New API key">
        <label>
          Key name <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={60} />
        </label>
        <button type="submit">Create key</button>
      </form>
      <ErrorLine error={error} />
    </section>
  );
}

/** Live keys first (newest first, as listed), then the revoked ones: what can still be used leads. */
function liveFirst(keys: Json[]): Json[] {
  return [...keys.filter((k) => !k.revokedAt), ...keys.filter((k) => k.revokedAt)];
}

function Webhook({ agentId, url, onChange }: { agentId: string; url: string | null; onChange: () => void }) {
  const [value, setValue] = useState(url ?? '');
  const [result, setResult] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const save = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      await agentApi(agentId, 'PATCH', '/agents/webhooks', {
        url: value.trim() === '' ? null : value.trim(),
      });
      setResult('Saved.');
      onChange();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const test = async () => {
    setError(null);
    try {
      setResult((await agentApi(agentId, 'POST', '/agents/webhooks')).message);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <section className="card" aria-labelledby="webhook-title">
      <h2 id="webhook-title">Webhook</h2>
      <form className="row" onSubmit={save}>
        <label>
          Webhook URL{' '}
          <input value={value} onChange={(e) => setValue(e.target.value)} placeholder="https://…" size={50} />
        </label>
        <button type="submit">Save webhook</button>
        <button type="button" onClick={test} disabled={!url}>
          Send test event
        </button>
      </form>
      <p className="muted">Webhooks are signed with the agent's newest live API key.</p>
      {result ? <p role="status">{result}</p> : null}
      <ErrorLine error={error} />
    </section>
  );
}

/**
 * Shown while an endpoint of this agent is quarantined (it kept taking webhooks without answering
 * in time): what happened, that nothing is lost, how to fix it, and a button to resume at once.
 */
function QuarantineNotice({ agentId }: { agentId: string }) {
  const [endpoints, setEndpoints] = useState<Json[]>([]);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(
    () =>
      agentApi(agentId, 'GET', '/agents/webhooks/endpoints')
        .then((r) => setEndpoints(r.endpoints))
        .catch((e) => setError(e.message)),
    [agentId],
  );
  useEffect(() => {
    void load();
    const timer = setInterval(load, REFRESH_MS);
    return () => clearInterval(timer);
  }, [load]);
  const held = endpoints.filter((e) => e.state === 'quarantined');
  if (held.length === 0) return error ? <ErrorLine error={error} /> : null;
  const resume = async (origin: string) => {
    setError(null);
    try {
      setEndpoints(
        (await agentApi(agentId, 'POST', '/agents/webhooks/endpoints/resume', { origin })).endpoints,
      );
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <section className="card notice" role="alert" aria-labelledby="quarantine-title">
      <h2 id="quarantine-title">Webhooks paused</h2>
      {held.map((e) => (
        <div key={e.origin}>
          <p>
            <code>{e.origin}</code> took webhooks without answering in time ({e.consecutiveTimeouts} in a row
            {e.lastError ? `; last: ${e.lastError}` : ''}), so Handoff stopped sending to it until{' '}
            {e.quarantinedUntil.slice(0, 16).replace('T', ' ')} UTC. {e.pendingDeliveries}{' '}
            {e.pendingDeliveries === 1 ? 'delivery is' : 'deliveries are'} waiting: none is lost, and waiting
            does not use up their retries.
          </p>
          <p>
            To fix it, make the receiver answer with a 2xx status within a few seconds (do slow work after
            answering), then resume. Deliveries also resume by themselves when the pause ends, one first to
            check the endpoint.
          </p>
          <button type="button" onClick={() => resume(e.origin)}>
            Resume deliveries now
          </button>
        </div>
      ))}
      <ErrorLine error={error} />
    </section>
  );
}

/** The deadline a task row shows: the worker's, once assigned; else the one set at creation. */
function deadlineOf(t: Json): string {
  if (t.executionDeadline) return when(t.executionDeadline);
  if (t.deadline) return when(t.deadline);
  return t.executionDeadlineDays ? `${t.executionDeadlineDays} d once assigned` : '—';
}

/** Does a task match the search words (title, id or worker's name), case-insensitively? */
export function taskMatches(t: Json, search: string): boolean {
  const words = search.trim().toLowerCase();
  if (!words) return true;
  const worker = t.worker ? `${t.worker.firstName} ${t.worker.username ?? ''}` : '';
  return `${t.title} ${t.id} ${worker}`.toLowerCase().includes(words);
}

function Tasks({ agentId }: { agentId: string }) {
  const [status, setStatus] = useState('');
  const [search, setSearch] = useState('');
  const [tasks, setTasks] = useState<Json[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const load = () =>
      agentApi(agentId, 'GET', `/agents/tasks?limit=100${status ? `&status=${status}` : ''}`)
        .then((r) => setTasks(r.tasks))
        .catch((e) => setError(e.message));
    void load();
    const timer = setInterval(load, REFRESH_MS);
    return () => clearInterval(timer);
  }, [agentId, status]);
  const shown = tasks.filter((t) => taskMatches(t, search));
  return (
    <section className="card" aria-labelledby="tasks-title">
      <h2 id="tasks-title">Tasks</h2>
      <div className="row">
        <label>
          Status{' '}
          <select value={status} onChange={(e) => setStatus(e.target.value)}>
            {TASK_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s ? labelOf(TASK_STATUS_LABEL, s) : 'All'}
              </option>
            ))}
          </select>
        </label>
        <label>
          Search{' '}
          <input
            type="search"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            placeholder="Title, task id or worker"
          />
        </label>
      </div>
      <table aria-label="Tasks" className="reflow">
        <thead>
          <tr>
            <th>Title</th>
            <th>Status</th>
            <th>Worker</th>
            <th className="num">Applicants</th>
            <th>Deadline</th>
            <th className="num">Reward</th>
            <th>Created</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((t) => (
            <tr key={t.id}>
              <td data-label="Title" className="breakable">
                <a href={`#/agents/${agentId}/tasks/${t.id}`}>{t.title}</a>
              </td>
              <td data-label="Status">
                <StatusBadge status={t.status} label={taskStatusLabel(t)} />
              </td>
              <td data-label="Worker">{t.worker ? t.worker.firstName : <span className="muted">—</span>}</td>
              <td data-label="Applicants" className="num">
                {t.applicationCount ?? '—'}
              </td>
              <td data-label="Deadline">{deadlineOf(t)}</td>
              <td data-label="Reward" className="num">
                {formatAmount(t.reward, currencyOf(t))}
              </td>
              <td data-label="Created">{t.createdAt.slice(0, 10)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {shown.length === 0 ? (
        <p className="muted">
          No tasks{status ? ` with status “${labelOf(TASK_STATUS_LABEL, status)}”` : ''}
          {search.trim() ? ` matching “${search.trim()}”` : ''}.
        </p>
      ) : null}
      <ErrorLine error={error} />
    </section>
  );
}

/** A delivery's last answer in words: the status code, or what went wrong. */
function answerOf(d: Json): string {
  if (d.lastStatusCode) return `HTTP ${d.lastStatusCode}`;
  return d.lastError ?? (d.attempts === 0 ? 'Not sent yet' : '—');
}

function Deliveries({ agentId }: { agentId: string }) {
  const [deliveries, setDeliveries] = useState<Json[]>([]);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(
    () =>
      agentApi(agentId, 'GET', '/agents/webhooks/deliveries?limit=20')
        .then((r) => setDeliveries(r.deliveries))
        .catch((e) => setError(e.message)),
    [agentId],
  );
  useEffect(() => {
    void load();
  }, [load]);
  const redeliver = async (id: string) => {
    try {
      await agentApi(agentId, 'POST', `/agents/webhooks/deliveries/${id}/redeliver`);
      await load();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <section className="card" aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Webhook deliveries</h2>
      <ol className="deliveries" aria-label="Webhook deliveries">
        {deliveries.map((d) => (
          <li key={d.id} className="delivery">
            <div className="row">
              <strong>{d.event}</strong>
              <span
                className={`badge ${d.status === 'delivered' ? 'ok' : d.status === 'failed' ? 'bad' : 'warn'}`}
              >
                {d.status === 'pending' && d.attempts > 0
                  ? 'Will retry'
                  : labelOf(DELIVERY_STATUS_LABEL, d.status)}
              </span>
              <span className="muted">{when(d.createdAt)}</span>
            </div>
            <dl className="facts">
              <dt>Attempts</dt>
              <dd>{d.attempts}</dd>
              <dt>Last answer</dt>
              <dd>{answerOf(d)}</dd>
              {d.nextAttemptAt ? (
                <>
                  <dt>Next retry</dt>
                  <dd>{when(d.nextAttemptAt)}</dd>
                </>
              ) : null}
              {d.deliveredAt ? (
                <>
                  <dt>Delivered</dt>
                  <dd>{when(d.deliveredAt)}</dd>
                </>
              ) : null}
              <dt>To</dt>
              <dd className="breakable">{d.url}</dd>
            </dl>
            {d.requestBody ? (
              <details>
                <summary>Request body</summary>
                {/* Wrapped, not scrolled (the body is at most 4,000 characters): nothing to reach by keyboard. */}
                <pre className="code body">{pretty(d.requestBody)}</pre>
              </details>
            ) : null}
            {d.status === 'failed' ? (
              <button type="button" onClick={() => redeliver(d.id)} aria-label={`Redeliver ${d.event}`}>
                Redeliver
              </button>
            ) : null}
          </li>
        ))}
      </ol>
      {deliveries.length === 0 ? <p className="muted">No deliveries yet.</p> : null}
      <ErrorLine error={error} />
    </section>
  );
}

/** JSON indented for reading; a body cut for length (ending in …) is shown as it is. */
function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/** Re-read when the agent's deposited or spent totals change (`moneyMoved`). */
function Spending({ agentId, moneyMoved }: { agentId: string; moneyMoved: string }) {
  const [days, setDays] = useState<Json[] | null>(null);
  useEffect(() => {
    void moneyMoved;
    api('GET', `/agents/${agentId}/spending`)
      .then((r) => setDays(r.days))
      .catch(() => setDays([]));
  }, [agentId, moneyMoved]);
  return days ? <SpendingChart days={days} /> : null;
}
