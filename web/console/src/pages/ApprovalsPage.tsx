import { type ReactElement, type ReactNode, useState } from 'react';
import { ErrorLine } from '../App';
import { ApiError, api, type Json } from '../api';
import { APPROVAL_STATUS_LABEL, ageLabel, approvalTone, labelOf } from '../labels';
import { currencyOf, decimalOf, formatAmount, unitsOf } from '../ton';
import { when } from '../trust';

/** GET /console/api/approvals: the queue (oldest first), the recent history, the server's time. */
export interface ApprovalsData {
  approvals: Json[];
  recent: Json[];
  now: string;
}

/** The outcome of the owner's last decision: a plain status line, or an alert when nothing was created. */
interface Outcome {
  tone: 'ok' | 'bad';
  text: ReactNode;
}

const agentName = (a: Json) => a.agent.name ?? a.agent.id;
const keyName = (a: Json) => a.key.name ?? (a.key.hint ? `…${a.key.hint}` : 'a revoked key');

/** The platform fee in an approval's total: the total less the reward, exactly, in its currency. */
function feeOf(a: Json): string {
  const currency = currencyOf(a);
  try {
    return formatAmount(
      decimalOf(unitsOf(a.amount, currency) - unitsOf(a.task.reward, currency), currency),
      currency,
    );
  } catch {
    return '—';
  }
}

/**
 * Why an approved task was not created, in words the owner can act on: the balance (top up, then
 * the agent posts again: the approval is closed), a limit or freeze, or the server's own sentence.
 */
function failureText(a: Json): ReactNode {
  const title = `“${a.task.title}”`;
  const amount = formatAmount(a.amount, currencyOf(a));
  if (a.failure?.status === 402) {
    return (
      <>
        {title} was not created: {agentName(a)}'s {currencyOf(a)} balance no longer covers its {amount}, and
        nothing was taken. <a href={`#/agents/${a.agent.id}`}>Top up {agentName(a)}</a>, then ask the agent to
        post the task again (this approval is closed).
      </>
    );
  }
  if (a.failure?.status === 403) {
    return `${title} was not created: a spend limit or a freeze refuses it now (${a.failure.error}). Nothing was taken.`;
  }
  return `${title} was not created: ${a.failure?.error ?? 'the server refused it'}. Nothing was taken.`;
}

/** What a decision did, as the page says it once the server has answered. */
function outcomeOf(a: Json): Outcome {
  const title = `“${a.task.title}”`;
  if (a.status === 'APPROVED') {
    return {
      tone: 'ok',
      text: (
        <>
          Approved {title}: the task is open to workers and {formatAmount(a.amount, currencyOf(a))} is held
          from {agentName(a)}'s balance.{' '}
          <a href={`#/agents/${a.agent.id}/tasks/${a.taskId}`}>Open the task</a>
        </>
      ),
    };
  }
  if (a.status === 'DECLINED') {
    return {
      tone: 'ok',
      text: a.failure
        ? `${title}: ${a.failure.error} Nothing was taken.`
        : `Declined ${title}: nothing was taken from ${agentName(a)}'s balance, and the agent is told.`,
    };
  }
  return { tone: 'bad', text: failureText(a) };
}

/**
 * The owner's approvals (issue 38): tasks an agent posted above its key's "approve above" amount
 * wait here for Approve (the task is created and funded now, as if posted now) or Decline
 * (nothing is taken). The closed ones are listed apart with their outcome. The data is loaded by
 * the app (the header's badge counts the same queue); `onChanged` reloads it after a decision.
 */
export function ApprovalsPage({
  data,
  error,
  onChanged,
}: {
  data: ApprovalsData | null;
  error: string | null;
  onChanged: () => Promise<void>;
}) {
  const [busy, setBusy] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  const decide = async (a: Json, action: 'approve' | 'decline') => {
    setBusy(a.id);
    setOutcome(null);
    try {
      const { approval } = await api('POST', `/approvals/${a.id}/${action}`);
      setOutcome(outcomeOf({ ...approval, agent: a.agent, key: a.key }));
    } catch (e) {
      const closed = e instanceof ApiError && e.status === 409;
      setOutcome({
        tone: 'bad',
        text: closed ? `${(e as Error).message} The list below is up to date.` : (e as Error).message,
      });
    } finally {
      setBusy(null);
      await onChanged();
    }
  };

  return (
    <main>
      <h1>Approvals</h1>
      <p className="muted">
        A task an agent posts above its key's “approve above” amount waits here. Approve creates it and holds
        its total from the agent's balance; Decline takes nothing. Unanswered, it expires.
      </p>
      <ErrorLine error={error} />
      {outcome ? (
        <p
          role={outcome.tone === 'ok' ? 'status' : 'alert'}
          className={outcome.tone === 'ok' ? 'ok-line' : 'error'}
        >
          {outcome.text}
        </p>
      ) : null}
      <section className="card" aria-labelledby="waiting-title">
        <h2 id="waiting-title">Waiting for you</h2>
        {data === null ? <p className="muted">Loading…</p> : null}
        {data && data.approvals.length === 0 ? (
          <p className="muted">Nothing waits for your approval.</p>
        ) : null}
        {data && data.approvals.length > 0 ? (
          <ul className="approvals" aria-label="Waiting for you">
            {data.approvals.map((a) => (
              <Waiting key={a.id} approval={a} now={data.now} busy={busy !== null} onDecide={decide} />
            ))}
          </ul>
        ) : null}
      </section>
      {data && data.recent.length > 0 ? <Recent approvals={data.recent} /> : null}
    </main>
  );
}

function Waiting({
  approval: a,
  now,
  busy,
  onDecide,
}: {
  approval: Json;
  now: string;
  busy: boolean;
  onDecide: (a: Json, action: 'approve' | 'decline') => void;
}) {
  const currency = currencyOf(a);
  const left = new Date(a.expiresAt).getTime() - new Date(now).getTime();
  const titleId = `approval-${a.id}`;
  return (
    <li className="approval" aria-labelledby={titleId}>
      <h3 id={titleId} className="breakable">
        {a.task.title}
      </h3>
      <dl className="facts">
        <dt>Agent</dt>
        <dd className="breakable">
          <a href={`#/agents/${a.agent.id}`}>{agentName(a)}</a>, key “{keyName(a)}”
        </dd>
        <dt>Total</dt>
        <dd>
          <strong>{formatAmount(a.amount, currency)}</strong>
        </dd>
        <dt>Reward</dt>
        <dd>{formatAmount(a.task.reward, currency)}</dd>
        <dt>Platform fee</dt>
        <dd>{feeOf(a)}</dd>
        <dt>Expires</dt>
        <dd>
          in {ageLabel(left)} ({when(a.expiresAt)})
        </dd>
      </dl>
      {a.task.description ? (
        <details>
          <summary>Task description</summary>
          <p className="description breakable">{a.task.description}</p>
        </details>
      ) : null}
      <div className="row">
        <button type="button" className="primary" disabled={busy} onClick={() => onDecide(a, 'approve')}>
          Approve<span className="sr-only"> “{a.task.title}”</span>
        </button>
        <button type="button" disabled={busy} onClick={() => onDecide(a, 'decline')}>
          Decline<span className="sr-only"> “{a.task.title}”</span>
        </button>
      </div>
    </li>
  );
}

/** Why a closed approval ended as it did, shortly; a link to the task it created. */
function closedDetail(a: Json): ReactElement | string {
  if (a.status === 'APPROVED' && a.taskId)
    return <a href={`#/agents/${a.agent.id}/tasks/${a.taskId}`}>Open the task</a>;
  if (a.status === 'FAILED') {
    return a.failure?.status === 402 ? 'The balance no longer covered it' : (a.failure?.error ?? '');
  }
  if (a.status === 'DECLINED' && a.failure) return a.failure.error;
  return '';
}

function Recent({ approvals }: { approvals: Json[] }) {
  return (
    <section className="card" aria-labelledby="recent-title">
      <h2 id="recent-title">Decided and expired</h2>
      <table aria-label="Decided and expired" className="reflow">
        <thead>
          <tr>
            <th>Task</th>
            <th>Agent</th>
            <th className="num">Total</th>
            <th>Outcome</th>
            <th>When</th>
          </tr>
        </thead>
        <tbody>
          {approvals.map((a) => (
            <tr key={a.id}>
              <td data-label="Task" className="breakable">
                {a.task.title}
              </td>
              <td data-label="Agent" className="breakable">
                {agentName(a)}
              </td>
              <td data-label="Total" className="num">
                {formatAmount(a.amount, currencyOf(a))}
              </td>
              <td data-label="Outcome">
                <span className="stack-cell">
                  <span className={`badge ${approvalTone(a.status)}`}>
                    {labelOf(APPROVAL_STATUS_LABEL, a.status)}
                  </span>
                  {closedDetail(a) ? <span className="muted">{closedDetail(a)}</span> : null}
                </span>
              </td>
              <td data-label="When">{when(a.decidedAt ?? a.expiresAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
