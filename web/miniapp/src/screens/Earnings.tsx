import { useTranslation } from 'react-i18next';
import { api, type Payout, type Task, type Worker } from '../api';
import { type Currency, formatAmount, formatDate, formatDateTime, formatNumber } from '../format';
import { ErrorNote, Loading, useLoad } from '../ui';

interface CurrencyTotals {
  paid: string;
  onTheWay: string;
  inReview: string;
  inReviewTasks: number;
}

/** GET /worker/earnings: the TON sums at the top (older clients), every currency's in byCurrency. */
interface Totals extends CurrencyTotals {
  byCurrency: Record<Currency, CurrencyTotals>;
}

const CURRENCIES: Currency[] = ['TON', 'USDT'];

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
  | { kind: 'review'; taskId: string; title: string; amount: string; currency: Currency; at: string }
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
        currency: task.currency,
        at: task.submission?.createdAt ?? task.createdAt,
      }));
    return [...review, ...payouts.map((payout): Row => ({ kind: 'payout', payout }))];
  });
  const ratings = useLoad(() => api<{ ratings: ReceivedRating[] }>('GET', '/worker/ratings?limit=20'));
  // Each currency the worker has money in, on its own line of each sum (TON when there is none).
  const byCurrency = totals.data?.byCurrency;
  const shown = byCurrency ? CURRENCIES.filter((c) => hasMoney(byCurrency[c])) : [];
  const currencies: Currency[] = shown.length > 0 ? shown : ['TON'];
  const lines = (
    pick: (c: CurrencyTotals, currency: Currency) => string,
    only?: (c: CurrencyTotals) => boolean,
  ) =>
    byCurrency
      ? currencies
          .filter((currency) => !only || only(byCurrency[currency]))
          .map((currency) => (
            <span key={currency} className="amount-line">
              {formatAmount(pick(byCurrency[currency], currency), currency)}
            </span>
          ))
      : null;
  const inReviewTasks = byCurrency ? CURRENCIES.reduce((n, c) => n + byCurrency[c].inReviewTasks, 0) : 0;

  return (
    <>
      <section className="list-section" aria-labelledby="earnings-totals">
        <h2 id="earnings-totals" className="list-section-title">
          {t('earnings.totals')}
        </h2>
        {totals.loading && !totals.data ? <Loading label={t('earnings.loading')} /> : null}
        <ErrorNote error={totals.error} onRetry={totals.reload} />
        {byCurrency ? (
          <dl className="cells">
            <div className="cell">
              <dt>{t('earnings.paid')}</dt>
              <dd className="amount">{lines((c) => c.paid)}</dd>
            </div>
            <div className="cell">
              <dt>
                <span>{t('earnings.pending')}</span>
                <span className="cell-hint">{t('earnings.pendingHint')}</span>
              </dt>
              <dd className="amount pending">
                {lines((c, currency) => addAmounts(c.onTheWay, c.inReview, currency))}
              </dd>
            </div>
            {currencies.some((c) => byCurrency[c].onTheWay !== '0') ? (
              <div className="cell sub">
                <dt>{t('earnings.onTheWay')}</dt>
                <dd>
                  {lines(
                    (c) => c.onTheWay,
                    (c) => c.onTheWay !== '0',
                  )}
                </dd>
              </div>
            ) : null}
            {inReviewTasks > 0 ? (
              <div className="cell sub">
                <dt>{t('earnings.inReview', { count: inReviewTasks })}</dt>
                <dd>
                  {lines(
                    (c) => c.inReview,
                    (c) => c.inReviewTasks > 0,
                  )}
                </dd>
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
                    <span className="amount pending">{formatAmount(row.amount, row.currency)}</span>
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
        <span className={paid ? 'amount' : 'amount pending'}>
          {formatAmount(payout.amount, payout.currency)}
        </span>
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

function hasMoney(c: CurrencyTotals): boolean {
  return c.paid !== '0' || c.onTheWay !== '0' || c.inReview !== '0';
}

/** The sum of two decimal amounts of one currency as the API writes them, exactly (in its smallest unit). */
function addAmounts(a: string, b: string, currency: Currency): string {
  const decimals = currency === 'USDT' ? 6 : 9;
  const scale = 10n ** BigInt(decimals);
  const units = (s: string) => {
    const [whole = '0', fraction = ''] = s.split('.');
    return BigInt(whole) * scale + BigInt(fraction.padEnd(decimals, '0').slice(0, decimals));
  };
  const sum = units(a) + units(b);
  const whole = sum / scale;
  const fraction = (sum % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : `${whole}`;
}
