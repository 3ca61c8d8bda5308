import { useEffect, useState } from 'react';
import { ErrorLine } from '../App';
import { agentApi, type Json } from '../api';
import { explorerLink, Stat } from '../components';

/** One task: its numbers, applications, the chat (read-only here) and its ledger lines. */
export function TaskPage({ agentId, taskId, network }: { agentId: string; taskId: string; network: string }) {
  const [task, setTask] = useState<Json | null>(null);
  const [messages, setMessages] = useState<Json[] | null>(null);
  const [ledger, setLedger] = useState<Json[]>([]);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    agentApi(agentId, 'GET', `/tasks/${taskId}`)
      .then((r) => setTask(r.task))
      .catch((e) => setError(e.message));
    agentApi(agentId, 'GET', `/chat/${taskId}/messages?limit=100`)
      .then((r) => setMessages(r.messages))
      .catch(() => setMessages(null));
    agentApi(agentId, 'GET', '/transactions?limit=100')
      .then((r) => setLedger(r.transactions.filter((t: Json) => t.task?.id === taskId)))
      .catch((e) => setError(e.message));
  }, [agentId, taskId]);

  if (!task) return <ErrorLine error={error} />;
  return (
    <main>
      <p>
        <a href={`#/agents/${agentId}`}>← Agent</a>
      </p>
      <h1>{task.title}</h1>
      <div className="stats">
        <Stat label="Status" value={task.status} />
        <Stat label="Reward" value={task.reward} unit="TON" />
        <Stat label="Fee" value={task.platformFee} unit="TON" />
        <Stat label="Payment" value={task.paymentStatus} />
      </div>
      <p className="description">{task.description}</p>

      <section className="card" aria-labelledby="applications-title">
        <h2 id="applications-title">Applications</h2>
        {(task.applications ?? []).length === 0 ? <p className="muted">No applications yet.</p> : null}
        <ul>
          {(task.applications ?? []).map((a: Json) => (
            <li key={a.id}>
              <strong>{a.user.firstName}</strong> ({a.status}) — {a.message}
            </li>
          ))}
        </ul>
      </section>

      <section className="card" aria-labelledby="chat-title">
        <h2 id="chat-title">Chat (read-only)</h2>
        {messages === null ? <p className="muted">No chat: the task has no assigned worker.</p> : null}
        <ol className="chat">
          {(messages ?? []).map((m: Json) => (
            <li key={m.id} className={m.senderType === 'AGENT' ? 'mine' : ''}>
              <span className="muted">
                {m.senderType === 'AGENT' ? 'Agent' : 'Worker'} · {m.createdAt.slice(0, 16).replace('T', ' ')}
              </span>
              <div>{m.content}</div>
            </li>
          ))}
        </ol>
      </section>

      <section className="card" aria-labelledby="ledger-title">
        <h2 id="ledger-title">Ledger</h2>
        <table aria-label="Ledger lines">
          <thead>
            <tr>
              <th>Type</th>
              <th>Amount</th>
              <th>Status</th>
              <th>Chain transaction</th>
              <th>When</th>
            </tr>
          </thead>
          <tbody>
            {ledger.map((t) => (
              <tr key={t.id}>
                <td>{t.type}</td>
                <td>{t.amount} TON</td>
                <td>{t.status}</td>
                <td>{explorerLink(network, t.txHash)}</td>
                <td>{t.createdAt.slice(0, 16).replace('T', ' ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <ErrorLine error={error} />
    </main>
  );
}
