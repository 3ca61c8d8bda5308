import type { Json } from '../api';

/** Deposits and spending per day as bars: an SVG drawn here, no chart library. */
export function SpendingChart({ days }: { days: Json[] }) {
  const width = 600;
  const height = 120;
  const max = Math.max(1e-9, ...days.flatMap((d) => [Number(d.deposited), Number(d.spent)]));
  const slot = width / Math.max(1, days.length);
  const bar = (value: string) => (Number(value) / max) * (height - 10);
  const spentTotal = days.reduce((sum, d) => sum + Number(d.spent), 0);
  return (
    <figure className="card" aria-label="Spending over time">
      <figcaption>
        <h2>Spending, last {days.length} days</h2>
        <span className="muted">
          {spentTotal.toLocaleString('en', { maximumFractionDigits: 9 })} TON spent ·{' '}
          <span className="swatch deposit" /> deposits <span className="swatch spent" /> spent
        </span>
      </figcaption>
      <svg
        viewBox={`0 0 ${width} ${height}`}
        width="100%"
        height={height}
        role="img"
        aria-label="Daily deposits and spending"
      >
        {days.map((d, i) => (
          <g key={d.day}>
            <title>{`${d.day}: deposited ${d.deposited} TON, spent ${d.spent} TON`}</title>
            <rect
              x={i * slot + 1}
              y={height - bar(d.deposited)}
              width={slot / 2 - 1}
              height={bar(d.deposited)}
              className="deposit"
            />
            <rect
              x={i * slot + slot / 2}
              y={height - bar(d.spent)}
              width={slot / 2 - 1}
              height={bar(d.spent)}
              className="spent"
            />
          </g>
        ))}
      </svg>
    </figure>
  );
}
