import { useCallback, useEffect, useState } from 'react';
import { ErrorLine } from '../App';
import { ApiError, agentApi, type Json } from '../api';
import { explorerLink, Stat } from '../components';
import {
  APPLICATION_LABEL,
  LEDGER_STATUS_LABEL,
  LEDGER_TYPE_LABEL,
  labelOf,
  paymentLabel,
  taskStatusLabel,
} from '../labels';
import { currencyOf, formatAmount } from '../ton';
import { ChatLog, when } from '../trust';
import { TaskBonuses } from './BonusDialog';
import { MoneyStats } from './MoneyStats';
import { TaskActions } from './TaskActions';
import { OwnerDispute, TaskReview } from './TaskReview';

/** The task is re-read this often, so a new submission or statement shows up without a reload. */
const REFRESH_MS = 5_000;

/**
 * One task: its numbers, what the owner can do now (accept an application, cancel, complete), the
 * submitted work with Approve / Request revision / Open dispute, the dispute, applications, the
 * chat (oldest first, with the worker's files) and its ledger lines. App mounts it per task id
 * (a `key`), so another task's page never shows this one's title while it loads.
 */
export function TaskPage({ agentId, taskId, network }: { agentId: string; taskId: string; network: string }) {
  const [task, setTask] = useState<Json | null>(null);
  const [missing, setMissing] = useState(false);
  const [messages, setMessages] = useState<Json[] | null>(null);
  const [ledger, setLedger] = useState<Json[]>([]);
  const [submissions, setSubmissions] = useState<Json[]>([]);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(() => {
    agentApi(agentId, 'GET', `/tasks/${taskId}`)
      .then((r) => setTask(r.task))
      .catch((e) => {
        // 404 (no such task) and 403 (another agent's) read the same to the owner: not here.
        if (e instanceof ApiError && (e.status === 404 || e.status === 403)) setMissing(true);
        else setError(e.message);
      });
    agentApi(agentId, 'GET', `/tasks/${taskId}/submissions`)
      .then((r) => setSubmissions(r.submissions))
      .catch(() => setSubmissions([]));
    agentApi(agentId, 'GET', `/chat/${taskId}/messages?limit=100`)
      // The API pages newest first; a conversation reads oldest first.
      .then((r) => setMessages([...r.messages].reverse()))
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

  if (missing) {
    return (
      <main>
        <p>
          <a href={`#/agents/${agentId}`}>← Agent</a>
        </p>
        <h1>Task not found</h1>
        <p>
          There is no task <code>{taskId}</code> for this agent. It may belong to another agent, or the link
          is mistyped.
        </p>
      </main>
    );
  }
  if (!task) return error ? <ErrorLine error={error} /> : <p className="muted">Loading the task…</p>;
  const applications: Json[] = task.applications ?? [];
  const currency = currencyOf(task);
  return (
    <main>
      <p>
        <a href={`#/agents/${agentId}`}>← Agent</a>
      </p>
      <h1>{task.title}</h1>
      <p className="muted">
        <code>{task.id}</code> · created {when(task.createdAt)}
        {task.batchId ? (
          <>
            {' '}
            · part of <a href={`#/agents/${agentId}/batches/${task.batchId}`}>a batch</a>
          </>
        ) : null}
      </p>
      <div className="stats wide">
        <Stat label="Status" value={taskStatusLabel(task)} />
        <MoneyStats task={task} returnedTo="you" />
        <Stat label="Payment" value={paymentLabel(task)} />
        <Stat label="Worker" value={task.worker ? task.worker.firstName : 'Not chosen yet'} />
        <Stat
          label="Deadline"
          value={task.executionDeadline ? when(task.executionDeadline) : deadlineBeforeAssignment(task)}
        />
      </div>
      <p className="description">{task.description}</p>
      <TaskActions agentId={agentId} task={task} onChanged={load} />
      {task.status === 'COMPLETED' && task.worker ? (
        <TaskBonuses agentId={agentId} task={task} onChanged={load} />
      ) : null}
      {submissions.length > 0 || task.status === 'REVIEW' ? (
        <TaskReview agentId={agentId} task={task} submissions={submissions} onChanged={load} />
      ) : null}
      <OwnerDispute agentId={agentId} task={task} onChanged={load} />

      <section className="card" aria-labelledby="applications-title">
        <h2 id="applications-title">Applications</h2>
        {applications.length === 0 ? <p className="muted">No applications yet.</p> : null}
        <ApplicationList agentId={agentId} task={task} applications={applications} onChanged={load} />
      </section>

      <section className="card" aria-labelledby="chat-title">
        <h2 id="chat-title">Chat with the worker</h2>
        <p className="muted">Read-only here: your agent writes through the API.</p>
        {messages === null ? <p className="muted">No chat: the task has no assigned worker.</p> : null}
        {messages && messages.length === 0 ? <p className="muted">No messages yet.</p> : null}
        <ChatLog messages={messages ?? []} workerName={task.worker?.firstName} agentLabel="Your agent" />
      </section>

      <section className="card" aria-labelledby="ledger-title">
        <h2 id="ledger-title">Ledger</h2>
        <table aria-label="Ledger lines" className="reflow">
          <thead>
            <tr>
              <th>Type</th>
              <th className="num">Amount</th>
              <th>Status</th>
              <th>Chain transaction</th>
              <th>When</th>
            </tr>
          </thead>
          <tbody>
            {ledger.map((t) => (
              <tr key={t.id}>
                <td data-label="Type">{labelOf(LEDGER_TYPE_LABEL, t.type)}</td>
                <td data-label="Amount" className="num">
                  {formatAmount(t.amount, t.currency ? currencyOf(t) : currency)}
                </td>
                <td data-label="Status">{labelOf(LEDGER_STATUS_LABEL, t.status)}</td>
                <td data-label="Chain transaction">{explorerLink(network, t.txHash)}</td>
                <td data-label="When">{when(t.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <ErrorLine error={error} />
    </main>
  );
}

/** Before a worker is assigned: the absolute deadline, or the days the worker will have. */
function deadlineBeforeAssignment(task: Json): string {
  if (task.deadline) return when(task.deadline);
  if (task.executionDeadlineDays) return `${task.executionDeadlineDays} days once assigned`;
  return '—';
}

const APPLICATION_TONE: Record<string, string> = { PENDING: 'info', OFFERED: 'info', ACCEPTED: 'ok' };

/** Applications with their state; a waiting one on a funded task can be accepted here. */
function ApplicationList({
  agentId,
  task,
  applications,
  onChanged,
}: {
  agentId: string;
  task: Json;
  applications: Json[];
  onChanged: () => void;
}) {
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const accept = async (application: Json) => {
    setBusy(application.id);
    setError(null);
    try {
      await agentApi(agentId, 'PATCH', `/applications/${application.id}`, { status: 'ACCEPTED' });
      setDone(`${application.user.firstName} is now working on the task; a chat with them is open.`);
      onChanged();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(null);
    }
  };
  return (
    <>
      {done ? (
        <p role="status" className="ok-line">
          {done}
        </p>
      ) : null}
      <ul className="applications">
        {applications.map((a: Json) => (
          <li key={a.id}>
            <div className="row">
              <strong>
                {a.user.firstName}
                {a.user.lastName ? ` ${a.user.lastName}` : ''}
              </strong>
              {a.user.username ? <span className="muted">@{a.user.username}</span> : null}
              <span className={`badge ${APPLICATION_TONE[a.status] ?? 'off'}`}>
                {labelOf(APPLICATION_LABEL, a.status)}
              </span>
              <span className="muted">{when(a.createdAt)}</span>
            </div>
            <p className="description">{a.message}</p>
            {a.status === 'PENDING' && task.status === 'FUNDED' ? (
              <button
                type="button"
                className="primary"
                disabled={busy !== null}
                onClick={() => void accept(a)}
              >
                Accept {a.user.firstName}
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      <ErrorLine error={error} />
    </>
  );
}
