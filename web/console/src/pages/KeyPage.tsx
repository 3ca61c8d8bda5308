import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { ErrorLine } from '../App';
import { ApiError, api, type Json } from '../api';
import {
  ACTIVITY_EVENT_LABEL,
  ACTOR_LABEL,
  LEDGER_TYPE_LABEL,
  LIMIT_LABEL,
  labelOf,
  SCOPE_LABEL,
} from '../labels';
import { type Currency, formatAmount } from '../ton';
import { DailyBars } from './DailyBars';

const CURRENCIES: Currency[] = ['TON', 'USDT'];
const LIMITS = ['maxTaskAmount', 'dailyLimit', 'monthlyLimit', 'approvalAbove'] as const;
const SCOPES = ['tasks:read', 'tasks:write', 'chat', 'money', 'webhooks', 'workers:read'] as const;

/** A moment in the viewer's own time zone and language ("Nov 29, 2026, 4:05 PM"). */
const localWhen = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/**
 * One API key, for its owner (issue 38, scope 4): its spend policy and scopes to edit, what it
 * spent per day, and what its tasks went through. The key comes from the agent's key list (live
 * keys, then the test world's), which carries its policy and what it used today and this month.
 */
export function KeyPage({ agentId, keyId }: { agentId: string; keyId: string }) {
  const [key, setKey] = useState<Json | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(async () => {
    try {
      for (const mode of ['live', 'test']) {
        const detail = await api('GET', `/agents/${agentId}?mode=${mode}`);
        const found = detail.keys.find((k: Json) => k.id === keyId);
        if (found) return setKey(found);
      }
      setError('API key not found');
    } catch (e) {
      setError((e as Error).message);
    }
  }, [agentId, keyId]);
  useEffect(() => {
    void load();
  }, [load]);
  if (!key) return <ErrorLine error={error} />;
  return (
    <main>
      <p>
        <a href={`#/agents/${agentId}`}>← Agent</a>
      </p>
      <h1>Key {key.name ?? '(unnamed)'}</h1>
      <p className="muted">
        <code>{key.hint}</code> · created {localWhen(key.createdAt)}
      </p>
      {key.revokedAt ? (
        <p className="muted">Revoked {localWhen(key.revokedAt)}: its policy can no longer change.</p>
      ) : null}
      <PolicyEditor agentId={agentId} apiKey={key} onSaved={setKey} />
      <KeySpending agentId={agentId} keyId={keyId} />
      <ActivityLog agentId={agentId} keyId={keyId} />
    </main>
  );
}

/** The server names limits by their API field ("maxTaskAmount"); the page says them as its labels. */
const inLabels = (sentence: string) =>
  LIMITS.reduce((text, l) => text.split(l).join(`“${LIMIT_LABEL[l]}”`), sentence);

type Draft = Record<Currency, Record<(typeof LIMITS)[number], string>>;

const draftOf = (key: Json): Draft =>
  Object.fromEntries(
    CURRENCIES.map((c) => [c, Object.fromEntries(LIMITS.map((l) => [l, key.spendPolicy[c][l] ?? '']))]),
  ) as Draft;

/**
 * Limits per currency (an empty field removes that limit) and scopes as checkboxes. The server
 * checks them; a 400 names the field, and its sentence is shown next to that field.
 */
function PolicyEditor({
  agentId,
  apiKey,
  onSaved,
}: {
  agentId: string;
  apiKey: Json;
  onSaved: (key: Json) => void;
}) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(apiKey));
  const [scopes, setScopes] = useState<string[]>(apiKey.scopes);
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const locked = !!apiKey.revokedAt;
  const save = async (event: FormEvent) => {
    event.preventDefault();
    setProblems({});
    setError(null);
    setSaved(false);
    const spendPolicy = Object.fromEntries(
      CURRENCIES.map((c) => [c, Object.fromEntries(LIMITS.map((l) => [l, draft[c][l].trim() || null]))]),
    );
    try {
      const { key } = await api('PATCH', `/agents/${agentId}/keys/${apiKey.id}`, { spendPolicy, scopes });
      setDraft(draftOf(key));
      setScopes(key.scopes);
      setSaved(true);
      onSaved(key);
    } catch (e) {
      const details = e instanceof ApiError ? e.details : [];
      if (details.length === 0) return setError((e as Error).message);
      setProblems(Object.fromEntries(details.map((d) => [d.path, d.message])));
    }
  };
  const field = (c: Currency, l: (typeof LIMITS)[number]) => {
    const path = `spendPolicy.${c}.${l}`;
    const problem = problems[path];
    const id = `limit-${c}-${l}`;
    return (
      <div key={l} className="limit-field">
        <label htmlFor={id}>{LIMIT_LABEL[l]}</label>
        <input
          id={id}
          inputMode="decimal"
          placeholder="no limit"
          value={draft[c][l]}
          disabled={locked}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? `${id}-problem` : undefined}
          onChange={(e) => setDraft({ ...draft, [c]: { ...draft[c], [l]: e.target.value } })}
        />
        {problem ? (
          <p id={`${id}-problem`} className="error" role="alert">
            {LIMIT_LABEL[l]} {inLabels(problem)}.
          </p>
        ) : null}
      </div>
    );
  };
  const scopeProblem = Object.entries(problems).find(([path]) => path.startsWith('scopes'))?.[1];
  return (
    <section className="card" aria-labelledby="policy-title">
      <h2 id="policy-title">Spend policy and scopes</h2>
      <p className="muted">
        Amounts this key may escrow (tasks, bonuses and their fees); refunds give room back. Days and months
        are UTC. Leave a field empty for no limit.
      </p>
      <form onSubmit={save} aria-label="Spend policy">
        {CURRENCIES.map((c) => (
          <fieldset key={c} className="limits">
            <legend>{c}</legend>
            <div className="limit-grid">{LIMITS.map((l) => field(c, l))}</div>
            <Usage currency={c} spending={apiKey.spending[c]} />
          </fieldset>
        ))}
        <fieldset className="scopes">
          <legend>Scopes: what this key may do</legend>
          {SCOPES.map((s) => (
            <label key={s} className="scope">
              <input
                type="checkbox"
                checked={scopes.includes(s)}
                disabled={locked}
                onChange={(e) =>
                  setScopes(
                    e.target.checked
                      ? SCOPES.filter((x) => x === s || scopes.includes(x))
                      : scopes.filter((x) => x !== s),
                  )
                }
              />{' '}
              <code>{s}</code> <span className="muted">{SCOPE_LABEL[s]}</span>
            </label>
          ))}
          {scopeProblem ? <p className="error">{scopeProblem}.</p> : null}
        </fieldset>
        <div className="row">
          <button type="submit" disabled={locked}>
            Save policy
          </button>
          {saved ? (
            <span role="status" className="muted">
              Saved.
            </span>
          ) : null}
        </div>
      </form>
      <ErrorLine error={error} />
    </section>
  );
}

/** What the key used today and this month (UTC) in one currency, and what its limits leave. */
function Usage({ currency, spending }: { currency: Currency; spending: Json }) {
  const left = (amount: string | null) =>
    amount === null ? 'no limit' : `${formatAmount(amount, currency)} left`;
  return (
    <p className="muted usage">
      Today: {formatAmount(spending.spentToday, currency)} used, {left(spending.leftToday)} · This month:{' '}
      {formatAmount(spending.spentThisMonth, currency)} used, {left(spending.leftThisMonth)}
    </p>
  );
}

/** What the key escrowed and got back per day over the last 30 days, one chart per currency. */
function KeySpending({ agentId, keyId }: { agentId: string; keyId: string }) {
  const [days, setDays] = useState<Json[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api('GET', `/agents/${agentId}/keys/${keyId}/spending`)
      .then((r) => setDays(r.days))
      .catch((e: Error) => setError(e.message));
  }, [agentId, keyId]);
  if (!days) return <ErrorLine error={error} />;
  return (
    <section className="card" aria-labelledby="key-spending-title">
      <h2 id="key-spending-title">Spending per day, last {days.length} days</h2>
      {CURRENCIES.map((c) => (
        <DailyBars
          key={c}
          id={`key-spending-${c}`}
          title={`${c} spent and refunded`}
          currency={c}
          days={days.map((d) => ({ day: d.day, spent: d.spent[c], refunded: d.refunded[c] }))}
          series={[
            { field: 'spent', label: 'spent', className: 'spent' },
            { field: 'refunded', label: 'refunded', className: 'deposit' },
          ]}
        />
      ))}
    </section>
  );
}

/** The key's tasks' ledger rows and events, newest first, a page at a time, searchable. */
function ActivityLog({ agentId, keyId }: { agentId: string; keyId: string }) {
  const [items, setItems] = useState<Json[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [query, setQuery] = useState('');
  const [searched, setSearched] = useState('');
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const fetchPage = useCallback(
    async (q: string, cursor: string | null) => {
      const params = new URLSearchParams();
      if (q) params.set('q', q);
      if (cursor) params.set('cursor', cursor);
      return api('GET', `/agents/${agentId}/keys/${keyId}/activity?${params}`);
    },
    [agentId, keyId],
  );
  const search = useCallback(
    async (q: string) => {
      setError(null);
      try {
        const r = await fetchPage(q, null);
        setItems(r.items);
        setNext(r.nextCursor);
        setSearched(q);
        setLoaded(true);
      } catch (e) {
        setError((e as Error).message);
      }
    },
    [fetchPage],
  );
  useEffect(() => {
    void search('');
  }, [search]);
  const more = async () => {
    try {
      const r = await fetchPage(searched, next);
      setItems([...items, ...r.items]);
      setNext(r.nextCursor);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const what = (item: Json) =>
    item.source === 'ledger'
      ? labelOf(LEDGER_TYPE_LABEL, item.kind)
      : labelOf(ACTIVITY_EVENT_LABEL, item.kind);
  return (
    <section className="card" aria-labelledby="activity-title">
      <h2 id="activity-title">Activity</h2>
      <form
        className="row"
        aria-label="Search the activity"
        onSubmit={(e) => {
          e.preventDefault();
          void search(query.trim());
        }}
      >
        <label>
          Task id or title{' '}
          <input type="search" value={query} onChange={(e) => setQuery(e.target.value)} maxLength={200} />
        </label>
        <button type="submit">Search</button>
      </form>
      {loaded && items.length === 0 ? (
        <p className="muted">
          {searched ? `Nothing matches “${searched}”.` : 'This key has done nothing yet.'}
        </p>
      ) : null}
      {items.length > 0 ? (
        <table aria-label="Key activity" className="reflow">
          <thead>
            <tr>
              <th>When</th>
              <th>What</th>
              <th>Who</th>
              <th>Task</th>
              <th className="num">Amount</th>
            </tr>
          </thead>
          <tbody>
            {items.map((item) => (
              <tr key={item.id}>
                <td data-label="When">
                  <time dateTime={item.at}>{localWhen(item.at)}</time>
                </td>
                <td data-label="What">{what(item)}</td>
                <td data-label="Who">{labelOf(ACTOR_LABEL, item.actor)}</td>
                <td data-label="Task">
                  {item.taskId ? (
                    <a href={`#/agents/${agentId}/tasks/${item.taskId}`}>{item.taskTitle ?? item.taskId}</a>
                  ) : (
                    '—'
                  )}
                </td>
                <td data-label="Amount" className="num">
                  {item.amount === null
                    ? '—'
                    : formatAmount(item.amount, item.currency === 'USDT' ? 'USDT' : 'TON')}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {next ? (
        <button type="button" onClick={() => void more()}>
          Show older
        </button>
      ) : null}
      <ErrorLine error={error} />
    </section>
  );
}
