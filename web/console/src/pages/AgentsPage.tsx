import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { ErrorLine } from '../App';
import { api, type Json } from '../api';
import { NewKey, Stat } from '../components';
import { formatAmount, formatTon, nanoOf, tonOf } from '../ton';
import { Onboarding } from './Onboarding';

export function AgentsPage() {
  const [agents, setAgents] = useState<Json[] | null>(null);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<{ id: string; apiKey: string } | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(
    () =>
      api('GET', '/agents')
        .then((r) => setAgents(r.agents))
        .catch((e) => setError(e.message)),
    [],
  );
  useEffect(() => {
    void load();
  }, [load]);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      const r = await api('POST', '/agents', { name });
      setCreated({ id: r.agent.id, apiKey: r.apiKey });
      setName('');
      await load();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  // Summed exactly in nanotons (the API's decimal strings have at most 9 decimals).
  const total = (field: string) => {
    const nano = (agents ?? []).reduce((sum, a) => sum + nanoOf(String(a[field])), 0n);
    return formatTon(tonOf(nano));
  };

  return (
    <main>
      <h1>Your agents</h1>
      <div className="stats">
        <Stat label="Agents" value={agents?.length ?? '…'} />
        <Stat label="Total balance" value={total('balance')} unit="TON" />
        <Stat label="Locked in tasks" value={total('lockedByTasks')} unit="TON" />
        <Stat label="Spent" value={total('spent')} unit="TON" />
      </div>
      {created ? (
        <NewKey apiKey={created.apiKey} onDone={() => (window.location.hash = `#/agents/${created.id}`)} />
      ) : null}
      <form className="card row" onSubmit={create} aria-label="New agent">
        <label>
          Agent name <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} />
        </label>
        <button type="submit" className="primary">
          Create agent
        </button>
      </form>
      <ErrorLine error={error} />
      {agents && agents.length === 0 ? <Onboarding hasKey={false} toppedUp={false} posted={false} /> : null}
      <table aria-label="Agents" className="reflow">
        <thead>
          <tr>
            <th>Name</th>
            <th className="num">Balance</th>
            <th className="num">Locked</th>
            <th className="num">Spent</th>
            <th>Created</th>
          </tr>
        </thead>
        <tbody>
          {(agents ?? []).map((a) => (
            <tr key={a.id}>
              <td data-label="Name" className="breakable">
                <a href={`#/agents/${a.id}`}>{a.name ?? a.id}</a>
              </td>
              <td data-label="Balance" className="num">
                {formatAmount(a.balance, 'TON')}
                <UsdtLine agent={a} field="balance" />
              </td>
              <td data-label="Locked" className="num">
                {formatAmount(a.lockedByTasks, 'TON')}
                <UsdtLine agent={a} field="lockedByTasks" />
              </td>
              <td data-label="Spent" className="num">
                {formatAmount(a.spent, 'TON')}
                <UsdtLine agent={a} field="spent" />
              </td>
              <td data-label="Created">{a.createdAt.slice(0, 10)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </main>
  );
}

/** The agent's USDT figure under the TON one, once it has had USDT (the two are never added). */
function UsdtLine({ agent, field }: { agent: Json; field: 'balance' | 'lockedByTasks' | 'spent' }) {
  const usdt = agent.balances?.USDT;
  if (!usdt || usdt.deposited === '0') return null;
  return <span className="amount-line">{formatAmount(usdt[field], 'USDT')}</span>;
}
