import { type FormEvent, useState } from 'react';
import { ErrorLine } from '../App';
import { api, type Json } from '../api';
import { formatTon } from '../ton';

type Currency = 'TON' | 'USDT';

/**
 * Shown while a balance is below the owner's low-balance alert (issue 38): the same crossing sends
 * the agent's webhook balance.low once; this stays until a top-up lifts the balance again.
 */
export function LowBalanceNotice({ balances, currencies }: { balances: Json; currencies: Currency[] }) {
  const low = currencies.filter((c) => balances[c]?.belowThreshold);
  if (low.length === 0) return null;
  return (
    <section className="card notice" role="alert" aria-labelledby="low-balance-title">
      <h2 id="low-balance-title">Balance low</h2>
      {low.map((c) => (
        <p key={c}>
          The {c} balance is {formatTon(balances[c].balance)} {c}, below your alert at{' '}
          {formatTon(balances[c].lowBalanceThreshold)} {c}. Top up below so the agent can keep posting tasks.
        </p>
      ))}
    </section>
  );
}

/** The owner's threshold per currency; an empty field removes that currency's alert. */
export function LowBalanceAlerts({
  agentId,
  balances,
  currencies,
  onChange,
}: {
  agentId: string;
  balances: Json;
  currencies: Currency[];
  onChange: () => void;
}) {
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(currencies.map((c) => [c, balances[c]?.lowBalanceThreshold ?? ''])),
  );
  const [result, setResult] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const save = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    setResult(null);
    try {
      const body = Object.fromEntries(
        currencies.map((c) => [c, (values[c] ?? '').trim() === '' ? null : (values[c] ?? '').trim()]),
      );
      await api('PUT', `/agents/${agentId}/low-balance`, body);
      setResult('Saved.');
      onChange();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <section className="card" aria-labelledby="low-balance-alerts-title">
      <h2 id="low-balance-alerts-title">Low-balance alert</h2>
      <form className="row" onSubmit={save}>
        {currencies.map((c) => (
          <label key={c}>
            Alert below ({c}){' '}
            <input
              value={values[c] ?? ''}
              onChange={(e) => setValues({ ...values, [c]: e.target.value })}
              inputMode="decimal"
              placeholder="No alert"
              size={12}
            />
          </label>
        ))}
        <button type="submit">Save alert</button>
      </form>
      <p className="muted">
        When a task, batch or bonus takes the balance below this amount, the agent's webhook gets balance.low
        once and this page shows a notice, until a top-up lifts the balance again. Leave empty for no alert.
      </p>
      {result ? <p role="status">{result}</p> : null}
      <ErrorLine error={error} />
    </section>
  );
}
