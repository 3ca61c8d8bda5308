import { useState } from 'react';
import { api, type Payout, type Task } from '../api';
import { haptic } from '../telegram';
import { ErrorNote, Loading, useLoad } from '../ui';
import { PayoutView } from './Earnings';

/** A completed task: the payment with its transaction, and rating the agent. */
export function Completed({ task }: { task: Task }) {
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
