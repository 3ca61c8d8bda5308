import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { ErrorLine } from '../App';
import { api, type Json } from '../api';
import { NewKey, Stat } from '../components';

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
    load();
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

  const total = (field: string) =>
    (agents ?? [])
      .reduce((sum, a) => sum + Number(a[field]), 0)
      .toLocaleString('en', { maximumFractionDigits: 9 });

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
      <table aria-label="Agents">
        <thead>
          <tr>
            <th>Name</th>
            <th>Balance</th>
            <th>Locked</th>
            <th>Spent</th>
            <th>Created</th>
          </tr>
        </thead>
        <tbody>
          {(agents ?? []).map((a) => (
            <tr key={a.id}>
              <td>
                <a href={`#/agents/${a.id}`}>{a.name ?? a.id}</a>
              </td>
              <td>{a.balance} TON</td>
              <td>{a.lockedByTasks} TON</td>
              <td>{a.spent} TON</td>
              <td>{a.createdAt.slice(0, 10)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </main>
  );
}
