import { useCallback, useEffect, useState } from 'react';
import { adminApi, type Json } from '../api';
import { Stat } from '../components';
import { ageLabel, DISPUTE_LABEL, labelOf, PARTY_LABEL, paymentLabel, TASK_STATUS_LABEL } from '../labels';
import { currencyOf, formatAmount } from '../ton';
import { ChatLog, DecisionText, StatementList, SubmissionList, when } from '../trust';
import { MoneyStats } from './MoneyStats';
import { ResolveForm } from './ResolveForm';

type Rejected = (e: { message: string; status?: number }) => void;

/** The queue is re-read this often, so a newly opened dispute shows up. */
const REFRESH_MS = 10_000;

/** Open disputes, oldest first: what waits longest is judged first. */
export function DisputeQueue({ token, onRejected }: { token: string; onRejected: Rejected }) {
  const [status, setStatus] = useState<'OPEN' | 'RESOLVED'>('OPEN');
  const [disputes, setDisputes] = useState<Json[] | null>(null);
  const load = useCallback(() => {
    adminApi(token, `/admin/disputes?status=${status}`)
      .then((r) => setDisputes(r.disputes))
      .catch(onRejected);
  }, [token, status, onRejected]);
  useEffect(() => {
    load();
    const timer = setInterval(load, REFRESH_MS);
    return () => clearInterval(timer);
  }, [load]);

  return (
    <>
      <h1>Disputes</h1>
      <div className="row">
        <label>
          Show{' '}
          <select value={status} onChange={(e) => setStatus(e.target.value as 'OPEN' | 'RESOLVED')}>
            <option value="OPEN">Open, oldest first</option>
            <option value="RESOLVED">Resolved</option>
          </select>
        </label>
      </div>
      <section className="card" aria-labelledby="queue-title">
        <h2 id="queue-title">{status === 'OPEN' ? 'Waiting for a decision' : 'Decided'}</h2>
        <table aria-label="Disputes" className="reflow">
          <thead>
            <tr>
              <th>Task</th>
              <th>Agent</th>
              <th>Worker</th>
              <th>Reward</th>
              <th>Opened by</th>
              <th>Reason</th>
              <th>Waiting</th>
            </tr>
          </thead>
          <tbody>
            {(disputes ?? []).map((d: Json) => (
              <tr key={d.id}>
                <td data-label="Task" className="breakable">
                  <a href={`#/operator/disputes/${d.id}`}>{d.task?.title ?? d.taskId}</a>
                </td>
                <td data-label="Agent">{d.agent?.name ?? d.agent?.id ?? '—'}</td>
                <td data-label="Worker">{workerName(d.worker)}</td>
                <td data-label="Reward">
                  {formatAmount(
                    d.task?.reward ?? d.reward,
                    currencyOf({ currency: d.task?.currency ?? d.currency }),
                  )}
                </td>
                <td data-label="Opened by">{labelOf(PARTY_LABEL, d.openedBy)}</td>
                <td data-label="Reason" className="breakable" title={d.reason}>
                  {clip(d.reason ?? '', 90)}
                </td>
                <td data-label="Waiting">{ageOf(d)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {disputes && disputes.length === 0 ? (
          <p className="muted">{status === 'OPEN' ? 'No open disputes.' : 'No resolved disputes yet.'}</p>
        ) : null}
        {disputes === null ? <p className="muted">Loading…</p> : null}
      </section>
    </>
  );
}

/** The start of a long text, whole characters (code points), with an ellipsis when cut. */
function clip(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text;
}

function workerName(worker: Json): string {
  if (!worker) return '—';
  const name = [worker.firstName, worker.lastName].filter(Boolean).join(' ');
  return worker.username ? `${name} (@${worker.username})` : name || worker.id;
}

/** How long a dispute has waited: the server's age when it sends one, else since it opened. */
function ageOf(d: Json): string {
  if (typeof d.ageSeconds === 'number') return ageLabel(d.ageSeconds * 1000);
  if (typeof d.ageHours === 'number') return ageLabel(d.ageHours * 3_600_000);
  return d.createdAt ? ageLabel(Date.now() - new Date(d.createdAt).getTime()) : '—';
}

/** Everything an operator needs to judge one dispute, and the resolution form. */
export function OperatorDispute({
  token,
  disputeId,
  onRejected,
}: {
  token: string;
  disputeId: string;
  onRejected: Rejected;
}) {
  const [detail, setDetail] = useState<Json | null>(null);
  const load = useCallback(() => {
    adminApi(token, `/admin/disputes/${encodeURIComponent(disputeId)}`)
      .then(setDetail)
      .catch(onRejected);
  }, [token, disputeId, onRejected]);
  useEffect(load, [load]);

  if (!detail) return <p className="muted">Loading…</p>;
  const dispute = detail.dispute ?? detail;
  const task = detail.task ?? dispute.task;
  // Every submission when the detail lists them; else the task's latest.
  const submissions: Json[] = detail.submissions ?? (task?.submission ? [task.submission] : []);
  const openedAt: string | undefined = detail.openedAt ?? dispute.createdAt;
  const messages: Json[] = detail.messages ?? detail.chat ?? [];
  const agent = detail.agent ?? task?.agent;
  const worker = detail.worker ?? task?.worker;
  return (
    <>
      <p>
        <a href="#/operator/disputes">← Disputes</a>
      </p>
      <h1>Dispute: {task?.title}</h1>
      <div className="stats wide">
        <Stat label="Dispute" value={labelOf(DISPUTE_LABEL, dispute.status)} />
        <MoneyStats task={task} returnedTo="the agent" />
        <Stat label="Task" value={labelOf(TASK_STATUS_LABEL, task?.status)} />
        <Stat label="Payment" value={paymentLabel(task)} />
      </div>
      <section className="card" aria-labelledby="d-summary">
        <h2 id="d-summary">The dispute</h2>
        <dl className="facts">
          <dt>Opened by</dt>
          <dd>
            {labelOf(PARTY_LABEL, dispute.openedBy)}
            {openedAt ? ` · ${when(openedAt)}` : ''}
          </dd>
          <dt>Reason</dt>
          <dd className="description">{dispute.reason}</dd>
          <dt>Agent</dt>
          <dd>{agent ? `${agent.name ?? 'unnamed'} (${agent.id})` : '—'}</dd>
          <dt>Worker</dt>
          <dd>{workerName(worker)}</dd>
        </dl>
      </section>
      <section className="card" aria-labelledby="d-task">
        <h2 id="d-task">Task</h2>
        <p className="description">{task?.description}</p>
      </section>
      <section className="card" aria-labelledby="d-work">
        <h2 id="d-work">Submissions</h2>
        <SubmissionList submissions={submissions} decided={dispute.status === 'RESOLVED'} />
      </section>
      <section className="card" aria-labelledby="d-statements">
        <h2 id="d-statements">Statements</h2>
        <StatementList statements={dispute.statements ?? []} />
      </section>
      <section className="card" aria-labelledby="d-chat">
        <h2 id="d-chat">Chat</h2>
        {messages.length === 0 ? <p className="muted">No messages.</p> : <ChatLog messages={messages} />}
        {detail.moreMessages ? (
          <p className="muted">Older messages are not shown: this is the newest {messages.length}.</p>
        ) : null}
      </section>
      {dispute.status === 'OPEN' && task ? (
        <ResolveForm token={token} disputeId={dispute.id ?? disputeId} task={task} onResolved={load} />
      ) : dispute.resolution ? (
        <section className="card" aria-labelledby="d-resolution">
          <h2 id="d-resolution">Decision</h2>
          <DecisionText resolution={dispute.resolution} reward={task?.reward} />
        </section>
      ) : null}
    </>
  );
}
