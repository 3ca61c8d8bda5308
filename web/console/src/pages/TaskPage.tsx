import { useCallback, useEffect, useState } from 'react';
import { ErrorLine } from '../App';
import { agentApi, type Json } from '../api';
import { explorerLink, Stat } from '../components';
import { APPLICATION_LABEL, labelOf, PAYMENT_STATUS_LABEL, TASK_STATUS_LABEL } from '../labels';
import { ChatLog } from '../trust';
import { OwnerDispute, TaskReview } from './TaskReview';

/** The task is re-read this often, so a new submission or statement shows up without a reload. */
const REFRESH_MS = 5_000;

/**
 * One task: its numbers, the submitted work with Approve / Request revision / Open dispute, the
 * dispute, applications, the chat (read-only here) and its ledger lines.
 */
export function TaskPage({ agentId, taskId, network }: { agentId: string; taskId: string; network: string }) {
  const [task, setTask] = useState<Json | null>(null);
  const [messages, setMessages] = useState<Json[] | null>(null);
  const [ledger, setLedger] = useState<Json[]>([]);
  const [submissions, setSubmissions] = useState<Json[]>([]);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(() => {
    agentApi(agentId, 'GET', `/tasks/${taskId}`)
      .then((r) => setTask(r.task))
      .catch((e) => setError(e.message));
    agentApi(agentId, 'GET', `/tasks/${taskId}/submissions`)
      .then((r) => setSubmissions(r.submissions))
      .catch(() => setSubmissions([]));
    agentApi(agentId, 'GET', `/chat/${taskId}/messages?limit=100`)
      .then((r) => setMessages(r.messages))
      .catch(() => setMessages(null));
    agentApi(agentId, 'GET', '/transactions?limit=100')
      .then((r) => setLedger(r.transactions.filter((t: Json) => t.task?.id === taskId)))
      .catch((e) => setError(e.message));
  }, [agentId, taskId]);
  useEffect(() => {
    load();
    const timer = setInterval(load, REFRESH_MS);
    return () => clearInterval(timer);
  }, [load]);

  if (!task) return <ErrorLine error={error} />;
  return (
    <main>
      <p>
        <a href={`#/agents/${agentId}`}>← Agent</a>
      </p>
      <h1>{task.title}</h1>
      <div className="stats wide">
        <Stat
          label="Status"
          value={task.dispute?.status === 'OPEN' ? 'In dispute' : labelOf(TASK_STATUS_LABEL, task.status)}
        />
        <Stat label="Reward" value={task.reward} unit="TON" />
        <Stat label="Fee" value={task.platformFee} unit="TON" />
        <Stat label="Payment" value={labelOf(PAYMENT_STATUS_LABEL, task.paymentStatus)} />
      </div>
      <p className="description">{task.description}</p>
      {submissions.length > 0 || task.status === 'REVIEW' ? (
        <TaskReview agentId={agentId} task={task} submissions={submissions} onChanged={load} />
      ) : null}
      <OwnerDispute agentId={agentId} task={task} onChanged={load} />

      <section className="card" aria-labelledby="applications-title">
        <h2 id="applications-title">Applications</h2>
        {(task.applications ?? []).length === 0 ? <p className="muted">No applications yet.</p> : null}
        <ul>
          {(task.applications ?? []).map((a: Json) => (
            <li key={a.id}>
              <strong>{a.user.firstName}</strong> ({labelOf(APPLICATION_LABEL, a.status)}) — {a.message}
            </li>
          ))}
        </ul>
      </section>

      <section className="card" aria-labelledby="chat-title">
        <h2 id="chat-title">Chat (read-only)</h2>
        {messages === null ? <p className="muted">No chat: the task has no assigned worker.</p> : null}
        {messages && messages.length === 0 ? <p className="muted">No messages yet.</p> : null}
        <ChatLog messages={messages ?? []} />
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
