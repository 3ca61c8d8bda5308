import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { ErrorLine } from '../App';
import { agentApi, api, type Json } from '../api';
import { NewKey, Stat } from '../components';
import { labelOf, TASK_STATUS_LABEL } from '../labels';
import { SpendingChart } from './SpendingChart';
import { TopUp } from './TopUp';

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
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(
    () =>
      api('GET', `/agents/${agentId}`)
        .then(setDetail)
        .catch((e) => setError(e.message)),
    [agentId],
  );
  useEffect(() => {
    load();
    const timer = setInterval(load, REFRESH_MS);
    return () => clearInterval(timer);
  }, [load]);

  if (!detail) return <ErrorLine error={error} />;
  const { agent } = detail;
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
        <Stat label="Balance" value={agent.balance} unit="TON" />
        <Stat label="Locked in tasks" value={agent.lockedByTasks} unit="TON" />
        <Stat label="Deposited" value={agent.deposited} unit="TON" />
        <Stat label="Spent" value={agent.spent} unit="TON" />
      </div>
      <ErrorLine error={error} />
      <Keys agentId={agentId} keys={detail.keys} onChange={load} />
      <TopUp agentId={agentId} deposit={detail.deposit} deposited={agent.deposited} onCredited={load} />
      <Webhook agentId={agentId} url={agent.webhookUrl} onChange={load} />
      <QuarantineNotice agentId={agentId} />
      <Tasks agentId={agentId} />
      <Deliveries agentId={agentId} />
      <Spending agentId={agentId} moneyMoved={`${agent.deposited}/${agent.spent}`} />
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
      <table aria-label="API keys">
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
          {keys.map((k) => (
            <tr key={k.id}>
              <td>{k.name ?? '(unnamed)'}</td>
              <td>
                <code>{k.hint}</code>
              </td>
              <td>{k.createdAt.slice(0, 16).replace('T', ' ')}</td>
              <td>{k.lastUsedAt ? k.lastUsedAt.slice(0, 16).replace('T', ' ') : 'never'}</td>
              <td>
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
    load();
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

function Tasks({ agentId }: { agentId: string }) {
  const [status, setStatus] = useState('');
  const [tasks, setTasks] = useState<Json[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const load = () =>
      agentApi(agentId, 'GET', `/agents/tasks?limit=50${status ? `&status=${status}` : ''}`)
        .then((r) => setTasks(r.tasks))
        .catch((e) => setError(e.message));
    load();
    const timer = setInterval(load, REFRESH_MS);
    return () => clearInterval(timer);
  }, [agentId, status]);
  return (
    <section className="card" aria-labelledby="tasks-title">
      <h2 id="tasks-title">Tasks</h2>
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
      <table aria-label="Tasks">
        <thead>
          <tr>
            <th>Title</th>
            <th>Status</th>
            <th>Reward</th>
            <th>Created</th>
          </tr>
        </thead>
        <tbody>
          {tasks.map((t) => (
            <tr key={t.id}>
              <td>
                <a href={`#/agents/${agentId}/tasks/${t.id}`}>{t.title}</a>
              </td>
              <td>{labelOf(TASK_STATUS_LABEL, t.status)}</td>
              <td>{t.reward} TON</td>
              <td>{t.createdAt.slice(0, 10)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {tasks.length === 0 ? (
        <p className="muted">
          No tasks{status ? ` with status “${labelOf(TASK_STATUS_LABEL, status)}”` : ''}.
        </p>
      ) : null}
      <ErrorLine error={error} />
    </section>
  );
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
    load();
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
      <table aria-label="Webhook deliveries">
        <thead>
          <tr>
            <th>Event</th>
            <th>Status</th>
            <th>Attempts</th>
            <th>Last answer</th>
            <th>Created</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {deliveries.map((d) => (
            <tr key={d.id}>
              <td>{d.event}</td>
              <td>{d.status}</td>
              <td>{d.attempts}</td>
              <td>{d.lastStatusCode ?? d.lastError ?? '—'}</td>
              <td>{d.createdAt.slice(0, 16).replace('T', ' ')}</td>
              <td>
                {d.status === 'failed' ? (
                  <button type="button" onClick={() => redeliver(d.id)}>
                    Redeliver
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {deliveries.length === 0 ? <p className="muted">No deliveries yet.</p> : null}
      <ErrorLine error={error} />
    </section>
  );
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
