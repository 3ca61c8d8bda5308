import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, type Payout, type Task } from '../api';
import { haptic, useClosingConfirmation, useMainButton } from '../telegram';
import { ErrorNote, Loading, Section, useLoad } from '../ui';
import { PayoutView } from './Earnings';

/** A completed task: the payment with its transaction, and the rating of the agent (given, or to give). */
export function Completed({ task }: { task: Task }) {
  const { t } = useTranslation();
  const payout = useLoad(async () => {
    const { payouts } = await api<{ payouts: Payout[] }>('GET', '/worker/payouts?limit=100');
    return payouts.find((p) => p.taskId === task.id) ?? null;
  }, task.id);
  return (
    <>
      <Section title={t('rating.payment')} plain>
        {payout.loading ? <Loading /> : null}
        <ErrorNote error={payout.error} onRetry={payout.reload} />
        {payout.data ? <PayoutView payout={payout.data} /> : null}
      </Section>
      {/* Until the task's own view arrives, whether it was rated is not known: no form yet. */}
      {task.yourRating !== undefined ? <RateAgent taskId={task.id} given={task.yourRating} /> : null}
    </>
  );
}

/** Five stars, lit up to the score; read as "4 of 5 stars". */
function StarsShown({ score }: { score: number }) {
  const { t } = useTranslation();
  return (
    <span className="stars-shown" role="img" aria-label={t('rating.starsOf', { count: score })}>
      {[1, 2, 3, 4, 5].map((n) => (
        <span key={n} className={n <= score ? 'star on' : 'star'} aria-hidden="true">
          ★
        </span>
      ))}
    </span>
  );
}

function RateAgent({
  taskId,
  given,
}: {
  taskId: string;
  given: { score: number; comment: string | null } | null;
}) {
  const { t } = useTranslation();
  const [score, setScore] = useState(0);
  const [comment, setComment] = useState('');
  const [done, setDone] = useState(given);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  useClosingConfirmation(done === null && (score > 0 || comment.trim() !== ''));
  // Sending is the screen's main action, on Telegram's main button once a star is chosen.
  const native = useMainButton(
    done === null && score > 0 ? { text: t('rating.send'), onClick: () => void submit(), busy } : null,
  );
  if (done !== null) {
    return (
      <Section title={t('rating.yourRating')} plain>
        <div role="status" aria-label={t('rating.yourRating')} className="stack">
          <p className="rated">
            <StarsShown score={done.score} />
            <span>{t('rating.youRated', { score: done.score })}</span>
          </p>
          {done.comment ? <blockquote className="quote">{done.comment}</blockquote> : null}
        </div>
      </Section>
    );
  }
  async function submit() {
    setBusy(true);
    setError(null);
    try {
      const trimmed = comment.trim();
      await api('POST', `/worker/tasks/${taskId}/rate`, { score, ...(trimmed ? { comment: trimmed } : {}) });
      setDone({ score, comment: trimmed || null });
      haptic.success();
    } catch (e) {
      setError(e);
      haptic.error();
    } finally {
      setBusy(false);
    }
  }
  return (
    <Section title={t('rating.title')} plain>
      <form
        className="stack"
        aria-label={t('rating.title')}
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <p className="muted small stars-question" id="rate-question">
          {t('rating.question')}
        </p>
        {/* A group of radios named by the question: screen readers say "4 stars, selected". */}
        <div className="stars" role="radiogroup" aria-labelledby="rate-question">
          {[1, 2, 3, 4, 5].map((n) => (
            <label key={n} className={n <= score ? 'star on' : 'star'}>
              <input
                type="radio"
                name="score"
                value={n}
                checked={score === n}
                aria-label={t('rating.stars', { count: n })}
                onChange={() => {
                  haptic.selection();
                  setScore(n);
                }}
              />
              <span aria-hidden="true">★</span>
            </label>
          ))}
        </div>
        <p className="muted small" aria-live="polite">
          {score > 0 ? t('rating.chosen', { count: score }) : t('rating.choose')}
        </p>
        <label>
          <span>{t('rating.comment')}</span>
          <textarea rows={2} maxLength={1000} value={comment} onChange={(e) => setComment(e.target.value)} />
        </label>
        <ErrorNote error={error} />
        {native ? null : (
          <button type="submit" disabled={busy || score === 0}>
            {t('rating.send')}
          </button>
        )}
      </form>
    </Section>
  );
}
