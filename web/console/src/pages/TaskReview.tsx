import { type FormEvent, useState } from 'react';
import { ErrorLine } from '../App';
import { agentApi, type Json } from '../api';
import { Confirm, useAgentCall } from '../components';
import { DISPUTE_LABEL, labelOf, PARTY_LABEL, reviewLeftLabel } from '../labels';
import { currencyOf, formatAmount } from '../ton';
import { DecisionText, StatementList, SubmissionList, when } from '../trust';

/** At most this many revision requests per task (the server refuses the next one). */
const MAX_REVISIONS = 3;

type Action = 'approve' | 'revision' | 'dispute' | null;

/**
 * The owner's review of a task's work: its submissions with their files, and while one waits,
 * Approve (pays the worker), Request revision (with a reason) or Open dispute (with a reason).
 */
export function TaskReview({
  agentId,
  task,
  submissions,
  onChanged,
}: {
  agentId: string;
  task: Json;
  submissions: Json[];
  onChanged: () => void;
}) {
  const [action, setAction] = useState<Action>(null);
  const [reason, setReason] = useState('');
  const call = useAgentCall(agentId, onChanged);
  const { busy, error, done, setDone } = call;
  // The last action's outcome is news until the next action starts.
  const choose = (next: Action) => {
    setDone(null);
    setAction(next);
  };
  const latest = submissions[0];
  const waiting = latest?.status === 'PENDING' && task.status === 'REVIEW';
  const revisionsUsed: number =
    task.revisionCount ?? submissions.filter((s: Json) => s.status === 'REVISION_REQUESTED').length;
  const disputable =
    !task.dispute &&
    (waiting || latest?.status === 'REVISION_REQUESTED') &&
    task.status !== 'COMPLETED' &&
    task.status !== 'CANCELLED';

  const run = (method: string, path: string, body: unknown, message: string) =>
    call.run(method, path, body, message, () => {
      setAction(null);
      setReason('');
    });
  const submitReason = (event: FormEvent) => {
    event.preventDefault();
    if (action === 'revision')
      void run(
        'POST',
        `/tasks/${task.id}/revisions`,
        { reason: reason.trim() },
        'Revision requested: the worker was told your reason.',
      );
    if (action === 'dispute')
      void run(
        'POST',
        `/tasks/${task.id}/dispute`,
        { reason: reason.trim() },
        'Dispute opened: an operator will decide.',
      );
  };

  return (
    <section className="card" aria-labelledby="work-title">
      <h2 id="work-title">Submitted work</h2>
      {waiting ? (
        <p className="notice-line" role="status">
          {reviewLeftLabel(task.reviewDeadline, Date.now()) ?? 'Waiting for your review.'}
        </p>
      ) : null}
      {done ? (
        <p role="status" className="ok-line">
          {done}
        </p>
      ) : null}
      <SubmissionList submissions={submissions} decided={task.dispute?.status === 'RESOLVED'} />
      {waiting || disputable ? (
        <div className="actions">
          <div className="row">
            {waiting ? (
              <button type="button" className="primary" disabled={busy} onClick={() => choose('approve')}>
                Approve
              </button>
            ) : null}
            {waiting ? (
              <button
                type="button"
                disabled={busy || revisionsUsed >= MAX_REVISIONS}
                onClick={() => choose('revision')}
                title={
                  revisionsUsed >= MAX_REVISIONS
                    ? 'Three revisions were asked already: approve or open a dispute'
                    : undefined
                }
              >
                Request revision
              </button>
            ) : null}
            {disputable ? (
              <button type="button" disabled={busy} onClick={() => choose('dispute')}>
                Open dispute
              </button>
            ) : null}
            <span className="muted">
              {revisionsUsed} of {MAX_REVISIONS} revisions used
            </span>
          </div>
          {action === 'approve' ? (
            <Confirm
              label="Confirm approval"
              busy={busy}
              act={`Approve and pay ${formatAmount(task.reward, currencyOf(task))}`}
              onAct={() =>
                void run(
                  'POST',
                  `/tasks/${task.id}/complete`,
                  undefined,
                  'Approved: the reward is on its way to the worker.',
                )
              }
              back="Cancel"
              onBack={() => setAction(null)}
            >
              <p>
                Approve submission {latest?.number} and pay the worker{' '}
                <strong>{formatAmount(task.reward, currencyOf(task))}</strong>? This completes the task and
                cannot be undone.
              </p>
            </Confirm>
          ) : null}
          {action === 'revision' || action === 'dispute' ? (
            <form className="confirm" onSubmit={submitReason}>
              <label className="block">
                {action === 'revision' ? 'What should the worker change?' : 'Why do you dispute this work?'}
                <textarea
                  rows={3}
                  maxLength={2000}
                  value={reason}
                  onChange={(e) => setReason(e.target.value)}
                  required
                />
              </label>
              <div className="row">
                <button type="submit" className="primary" disabled={busy || !reason.trim()}>
                  {action === 'revision' ? 'Send revision request' : 'Open the dispute'}
                </button>
                <button type="button" onClick={() => setAction(null)}>
                  Cancel
                </button>
              </div>
            </form>
          ) : null}
        </div>
      ) : null}
      <ErrorLine error={error} />
    </section>
  );
}

/** The task's dispute as its owner sees it: the reason, both sides' statements, the decision. */
export function OwnerDispute({
  agentId,
  task,
  onChanged,
}: {
  agentId: string;
  task: Json;
  onChanged: () => void;
}) {
  const dispute = task.dispute;
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!dispute) return null;
  const add = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await agentApi(agentId, 'POST', `/tasks/${task.id}/dispute/statements`, { text: text.trim() });
      setText('');
      onChanged();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="card" aria-labelledby="dispute-title">
      <h2 id="dispute-title">Dispute</h2>
      <dl className="facts">
        <dt>Status</dt>
        <dd>{labelOf(DISPUTE_LABEL, dispute.status)}</dd>
        <dt>Opened by</dt>
        <dd>
          {labelOf(PARTY_LABEL, dispute.openedBy)}
          {dispute.createdAt ? ` · ${when(dispute.createdAt)}` : ''}
        </dd>
        <dt>Reason</dt>
        <dd className="description">{dispute.reason}</dd>
        {dispute.resolution ? (
          <>
            <dt>Decision</dt>
            <dd>
              <DecisionText resolution={dispute.resolution} reward={task.reward} />
            </dd>
          </>
        ) : null}
      </dl>
      <h3>Statements</h3>
      <StatementList statements={dispute.statements ?? []} />
      {dispute.status === 'OPEN' ? (
        <form onSubmit={add} className="stack">
          <label className="block">
            Your statement
            <textarea
              rows={3}
              maxLength={2000}
              value={text}
              onChange={(e) => setText(e.target.value)}
              required
            />
          </label>
          <div className="row">
            <button type="submit" className="primary" disabled={busy || !text.trim()}>
              Add statement
            </button>
          </div>
        </form>
      ) : null}
      <ErrorLine error={error} />
    </section>
  );
}
