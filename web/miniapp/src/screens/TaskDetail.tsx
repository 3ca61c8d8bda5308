import { useState } from 'react';
import { type Application, api, type Payout, STATUS_LABEL, type Task, ton, type Worker } from '../api';
import { haptic, useMainButton } from '../telegram';
import { ErrorNote, Loading, useLoad } from '../ui';
import { Chat } from './Chat';
import { PayoutView } from './Earnings';
import { deadlineText } from './TaskCard';

const MINE: Task['status'][] = ['ASSIGNED', 'IN_PROGRESS', 'REVIEW', 'COMPLETED'];

/** A task: what it is, and what the worker can do with it now. */
export function TaskDetail({
  task: initial,
  me,
  onChanged,
  onNeedWallet,
}: {
  task: Task;
  me: Worker;
  onChanged: () => void;
  onNeedWallet: () => void;
}) {
  const [task, setTask] = useState(initial);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const mine = MINE.includes(task.status);
  const offered = task.status === 'OFFERED';
  const application = useLoad(async () => {
    const { applications } = await api<{ applications: Application[] }>(
      'GET',
      '/worker/applications?limit=100',
    );
    return applications.find((a) => a.taskId === task.id) ?? null;
  }, task.id);

  const act = async (run: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await run();
      haptic.success();
      onChanged();
    } catch (e) {
      setError(e);
      haptic.error();
    } finally {
      setBusy(false);
    }
  };

  const [message, setMessage] = useState('');
  const canApply =
    !mine && !offered && application.data === null && (task.status === 'OPEN' || task.status === 'FUNDED');
  const apply = () =>
    act(async () => {
      const res = await api<{ application: Application }>('POST', `/worker/tasks/${task.id}/applications`, {
        message,
      });
      application.set(res.application);
    });
  const acceptOffer = () =>
    act(async () => {
      const res = await api<{ task: Task }>('POST', `/worker/offers/${task.id}/accept`);
      setTask(res.task);
    });
  const declineOffer = () =>
    act(async () => {
      const res = await api<{ task: Task }>('POST', `/worker/offers/${task.id}/decline`);
      setTask(res.task);
    });
  const move = (status: 'IN_PROGRESS' | 'REVIEW') =>
    act(async () => {
      const res = await api<{ task: Task }>('PATCH', `/worker/tasks/${task.id}`, { status });
      setTask(res.task);
    });

  const main =
    canApply && me.walletAddress
      ? { text: 'Send application', onClick: apply, busy }
      : offered
        ? { text: 'Accept offer', onClick: acceptOffer, busy }
        : null;
  const native = useMainButton(main);

  return (
    <article className="detail" aria-labelledby="task-title">
      <h1 id="task-title">{task.title}</h1>
      <p className="card-row">
        <span className="reward big">{ton(task.reward)}</span>
        <span className="pill">{STATUS_LABEL[task.status]}</span>
      </p>
      <p className="muted small">
        From {task.agent.name ?? 'an agent'} · {deadlineText(task)}
      </p>
      <p className="description">{task.description}</p>
      <ErrorNote error={error} />

      {canApply ? (
        me.walletAddress ? (
          <form
            className="stack"
            onSubmit={(e) => {
              e.preventDefault();
              void apply();
            }}
          >
            <label>
              <span>Message to the agent</span>
              <textarea
                rows={3}
                maxLength={2000}
                value={message}
                onChange={(e) => setMessage(e.target.value)}
                placeholder="Why you are the right person"
              />
            </label>
            {native ? null : (
              <button type="submit" disabled={busy}>
                Send application
              </button>
            )}
          </form>
        ) : (
          <div className="notice">
            <p>Connect a TON wallet before applying: rewards are paid to it.</p>
            <button type="button" onClick={onNeedWallet}>
              Connect a wallet
            </button>
          </div>
        )
      ) : null}
      {application.loading && !mine ? <Loading label="Checking your application…" /> : null}
      {application.data && !mine ? (
        <p className="notice" role="status">
          {application.data.status === 'PENDING'
            ? 'You applied. The agent will answer here and in Telegram.'
            : application.data.status === 'REJECTED'
              ? 'The agent chose someone else this time.'
              : `Application: ${application.data.status.toLowerCase()}`}
        </p>
      ) : null}

      {offered ? (
        <div className="row">
          <p className="muted small">
            The agent offered this task to you. Accepting starts the execution deadline.
          </p>
          {native ? null : (
            <button type="button" onClick={acceptOffer} disabled={busy}>
              Accept offer
            </button>
          )}
          <button type="button" className="secondary" onClick={declineOffer} disabled={busy}>
            Decline offer
          </button>
        </div>
      ) : null}

      {task.status === 'ASSIGNED' ? (
        <button type="button" onClick={() => move('IN_PROGRESS')} disabled={busy}>
          Start work
        </button>
      ) : null}
      {task.status === 'IN_PROGRESS' ? (
        <button type="button" onClick={() => move('REVIEW')} disabled={busy}>
          Submit for review
        </button>
      ) : null}
      {task.status === 'REVIEW' ? (
        <p className="notice">Submitted: the agent reviews your work and completes the task to pay you.</p>
      ) : null}
      {task.status === 'COMPLETED' ? <Completed task={task} /> : null}
      {mine ? <Chat taskId={task.id} closed={task.status === 'COMPLETED'} /> : null}
    </article>
  );
}

function Completed({ task }: { task: Task }) {
  const payout = useLoad(async () => {
    const { payouts } = await api<{ payouts: Payout[] }>('GET', '/worker/payouts?limit=100');
    return payouts.find((p) => p.taskId === task.id) ?? null;
  }, task.id);
  return (
    <>
      <section className="section" aria-label="Payment">
        <h2>Payment</h2>
        {payout.loading ? <Loading /> : null}
        <ErrorNote error={payout.error} onRetry={payout.reload} />
        {payout.data ? <PayoutView payout={payout.data} /> : null}
      </section>
      <RateAgent taskId={task.id} />
    </>
  );
}

function RateAgent({ taskId }: { taskId: string }) {
  const [score, setScore] = useState(0);
  const [comment, setComment] = useState('');
  const [done, setDone] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  if (done !== null) {
    return (
      <p className="notice" role="status">
        Thanks: you rated the agent {done} of 5.
      </p>
    );
  }
  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      await api('POST', `/worker/tasks/${taskId}/rate`, { score, ...(comment.trim() ? { comment } : {}) });
      setDone(score);
      haptic.success();
    } catch (e) {
      setError(e);
      haptic.error();
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      className="section stack"
      aria-label="Rate the agent"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <h2>Rate the agent</h2>
      <fieldset className="stars">
        <legend>How was working with this agent?</legend>
        {[1, 2, 3, 4, 5].map((n) => (
          <label key={n} className={n <= score ? 'star on' : 'star'}>
            <input type="radio" name="score" value={n} checked={score === n} onChange={() => setScore(n)} />
            <span aria-hidden="true">★</span>
            <span className="sr-only">{n === 1 ? '1 star' : `${n} stars`}</span>
          </label>
        ))}
      </fieldset>
      <label>
        <span>Comment (optional)</span>
        <textarea rows={2} maxLength={1000} value={comment} onChange={(e) => setComment(e.target.value)} />
      </label>
      <ErrorNote error={error} />
      <button type="submit" disabled={busy || score === 0}>
        Send rating
      </button>
    </form>
  );
}
