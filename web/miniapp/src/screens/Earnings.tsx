import { useTranslation } from 'react-i18next';
import { api, type Payout, type Task, type Worker } from '../api';
import { formatAmount, formatDate, formatDateTime, formatNumber } from '../format';
import { ErrorNote, Loading, useLoad } from '../ui';

interface Totals {
  paid: string;
  onTheWay: string;
  inReview: string;
  inReviewTasks: number;
}

interface ReceivedRating {
  id: string;
  taskId: string;
  taskTitle: string;
  score: number;
  comment: string | null;
  createdAt: string;
}

/** A task's money as the worker sees it: waiting for review, on its way, or paid. */
type Row =
  | { kind: 'review'; taskId: string; title: string; amount: string; at: string }
  | { kind: 'payout'; payout: Payout };

/**
 * What the worker has earned: paid, on the way to the wallet, and waiting for the agents'
 * review; then each task's money with its real status, and what agents said in their ratings.
 */
export function EarningsScreen({ me }: { me: Worker }) {
  const { t } = useTranslation();
  const totals = useLoad(() => api<Totals>('GET', '/worker/earnings'));
  const rows = useLoad(async () => {
    const [{ payouts }, { tasks }] = await Promise.all([
      api<{ payouts: Payout[] }>('GET', '/worker/payouts?limit=100'),
      api<{ tasks: Task[] }>('GET', '/worker/assignments?limit=100'),
    ]);
    const review: Row[] = tasks
      .filter((task) => task.status === 'REVIEW' && task.dispute?.status !== 'OPEN')
      .map((task) => ({
        kind: 'review',
        taskId: task.id,
        title: task.title,
        amount: task.reward,
        at: task.submission?.createdAt ?? task.createdAt,
      }));
    return [...review, ...payouts.map((payout): Row => ({ kind: 'payout', payout }))];
  });
  const ratings = useLoad(() => api<{ ratings: ReceivedRating[] }>('GET', '/worker/ratings?limit=20'));
  const pending = totals.data ? addAmounts(totals.data.onTheWay, totals.data.inReview) : null;

  return (
    <>
      <section className="list-section" aria-labelledby="earnings-totals">
        <h2 id="earnings-totals" className="list-section-title">
          {t('earnings.totals')}
        </h2>
        {totals.loading && !totals.data ? <Loading label={t('earnings.loading')} /> : null}
        <ErrorNote error={totals.error} onRetry={totals.reload} />
        {totals.data ? (
          <dl className="cells">
            <div className="cell">
              <dt>{t('earnings.paid')}</dt>
              <dd className="amount">{formatAmount(totals.data.paid)}</dd>
            </div>
            <div className="cell">
              <dt>
                <span>{t('earnings.pending')}</span>
                <span className="cell-hint">{t('earnings.pendingHint')}</span>
              </dt>
              <dd className="amount pending">{formatAmount(pending ?? '0')}</dd>
            </div>
            {totals.data.onTheWay !== '0' ? (
              <div className="cell sub">
                <dt>{t('earnings.onTheWay')}</dt>
                <dd>{formatAmount(totals.data.onTheWay)}</dd>
              </div>
            ) : null}
            {totals.data.inReviewTasks > 0 ? (
              <div className="cell sub">
                <dt>{t('earnings.inReview', { count: totals.data.inReviewTasks })}</dt>
                <dd>{formatAmount(totals.data.inReview)}</dd>
              </div>
            ) : null}
            <div className="cell">
              <dt>{t('earnings.tasksDone')}</dt>
              <dd>{me.completedTasks}</dd>
            </div>
            <div className="cell">
              <dt>{t('earnings.rating')}</dt>
              <dd>
                {me.avgRating === null
                  ? t('earnings.noRating')
                  : t('earnings.ratingValue', {
                      rating: formatNumber(me.avgRating.toFixed(1)),
                      count: me.ratingCount,
                    })}
              </dd>
            </div>
          </dl>
        ) : null}
      </section>

      <section className="list-section" aria-labelledby="earnings-tasks">
        <h2 id="earnings-tasks" className="list-section-title">
          {t('earnings.byTask')}
        </h2>
        {rows.loading && !rows.data ? <Loading label={t('earnings.loading')} /> : null}
        <ErrorNote error={rows.error} onRetry={rows.reload} />
        {rows.data && rows.data.length === 0 ? <p className="cells-empty">{t('earnings.empty')}</p> : null}
        {rows.data && rows.data.length > 0 ? (
          <ul className="cells">
            {rows.data.map((row) =>
              row.kind === 'review' ? (
                <li key={`review-${row.taskId}`} className="cell money-row">
                  <span className="money-main">
                    <strong className="money-title">{row.title}</strong>
                    <span className="amount pending">{formatAmount(row.amount)}</span>
                  </span>
                  <span className="money-meta">
                    <span className="state review">{t('earnings.stateReview')}</span>
                    <span>{t('earnings.submittedOn', { date: formatDate(row.at) })}</span>
                  </span>
                </li>
              ) : (
                <li key={row.payout.id} className="cell money-row">
                  <PayoutView payout={row.payout} />
                </li>
              ),
            )}
          </ul>
        ) : null}
      </section>

      <section className="list-section" aria-labelledby="earnings-ratings">
        <h2 id="earnings-ratings" className="list-section-title">
          {t('earnings.ratings')}
        </h2>
        <ErrorNote error={ratings.error} onRetry={ratings.reload} />
        {ratings.data && ratings.data.ratings.length === 0 ? (
          <p className="cells-empty">{t('earnings.noRatings')}</p>
        ) : null}
        {ratings.data && ratings.data.ratings.length > 0 ? (
          <ul className="cells">
            {ratings.data.ratings.map((r) => (
              <li key={r.id} className="cell rating-row">
                <span className="money-main">
                  <strong className="money-title">{r.taskTitle}</strong>
                  <Stars score={r.score} />
                </span>
                {r.comment ? <q className="rating-comment">{r.comment}</q> : null}
                <span className="money-meta">{formatDate(r.createdAt)}</span>
              </li>
            ))}
          </ul>
        ) : null}
      </section>
    </>
  );
}

/** Five stars with `score` of them lit, read as "4 of 5 stars". */
function Stars({ score }: { score: number }) {
  const { t } = useTranslation();
  return (
    <span className="rating-stars" role="img" aria-label={t('earnings.stars', { score })}>
      {[1, 2, 3, 4, 5].map((n) => (
        <span key={n} className={n <= score ? 'lit' : undefined} aria-hidden="true">
          ★
        </span>
      ))}
    </span>
  );
}

/** One payout: the task, the amount, paid or on the way, and its transaction. */
export function PayoutView({ payout }: { payout: Payout }) {
  const { t } = useTranslation();
  const paid = payout.status === 'confirmed';
  return (
    <div className="payout">
      <span className="money-main">
        <strong className="money-title">{payout.taskTitle}</strong>
        <span className={paid ? 'amount' : 'amount pending'}>{formatAmount(payout.amount)}</span>
      </span>
      <span className="money-meta">
        <span className={paid ? 'state paid' : 'state sending'}>
          {paid ? t('earnings.statePaid') : t('earnings.stateSending')}
        </span>
        <span>{formatDateTime(payout.createdAt)}</span>
      </span>
      {payout.txHash ? (
        <span className="small">
          {t('earnings.transaction')}{' '}
          {payout.explorerUrl ? (
            <a href={payout.explorerUrl} target="_blank" rel="noopener noreferrer" className="hash">
              {payout.txHash}
            </a>
          ) : (
            <code className="hash" title={t('earnings.noExplorer')}>
              {payout.txHash}
            </code>
          )}
        </span>
      ) : null}
    </div>
  );
}

/** The sum of two decimal TON amounts as the API writes them, exactly (in nanoTON). */
function addAmounts(a: string, b: string): string {
  const nano = (s: string) => {
    const [whole = '0', fraction = ''] = s.split('.');
    return BigInt(whole) * 1_000_000_000n + BigInt(`${fraction}000000000`.slice(0, 9));
  };
  const sum = nano(a) + nano(b);
  const whole = sum / 1_000_000_000n;
  const fraction = (sum % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : `${whole}`;
}
