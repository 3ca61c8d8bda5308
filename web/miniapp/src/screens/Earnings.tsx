import { api, type Payout, shortDate, ton, type Worker } from '../api';
import { Empty, ErrorNote, Loading, Section, useLoad } from '../ui';

/** Totals and every payout with its amount, date and on-chain transaction. */
export function EarningsScreen({ me }: { me: Worker }) {
  const payouts = useLoad(() => api<{ payouts: Payout[] }>('GET', '/worker/payouts?limit=100'));
  return (
    <>
      <section className="stats" aria-label="Totals">
        <div>
          <span className="stat">{ton(me.totalEarned)}</span>
          <span className="muted small">earned</span>
        </div>
        <div>
          <span className="stat">{me.completedTasks}</span>
          <span className="muted small">tasks done</span>
        </div>
        <div>
          <span className="stat">{me.avgRating === null ? '–' : me.avgRating.toFixed(1)}</span>
          <span className="muted small">rating ({me.ratingCount})</span>
        </div>
      </section>
      <Section title="Payouts">
        {payouts.loading && !payouts.data ? <Loading label="Loading payouts…" /> : null}
        <ErrorNote error={payouts.error} onRetry={payouts.reload} />
        {payouts.data && payouts.data.payouts.length === 0 ? (
          <Empty>No payouts yet. When an agent completes your task, the reward is sent to your wallet.</Empty>
        ) : null}
        <ul className="list">
          {payouts.data?.payouts.map((p) => (
            <li key={p.id} className="card static">
              <PayoutView payout={p} />
            </li>
          ))}
        </ul>
      </Section>
    </>
  );
}

export function PayoutView({ payout }: { payout: Payout }) {
  return (
    <div className="payout">
      <span className="card-row">
        <strong className="card-title">{payout.taskTitle}</strong>
        <span className="reward">{ton(payout.amount)}</span>
      </span>
      <span className="card-row muted small">
        <span>{shortDate(payout.createdAt)}</span>
        <span>{payout.status === 'confirmed' ? 'Paid' : 'Being sent'}</span>
      </span>
      {payout.txHash ? (
        <span className="small">
          Transaction{' '}
          {payout.explorerUrl ? (
            <a href={payout.explorerUrl} target="_blank" rel="noreferrer" className="hash">
              {payout.txHash}
            </a>
          ) : (
            <code className="hash" title="On the local TON sandbox: no public explorer">
              {payout.txHash}
            </code>
          )}
        </span>
      ) : null}
    </div>
  );
}
