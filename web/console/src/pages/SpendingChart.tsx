import type { Json } from '../api';
import { niceCeiling } from '../chartScale';
import { formatAmount, formatTon } from '../ton';

/** Drawn in these units; a phone gets a narrower drawing, so its text is not scaled down to nothing. */
const WIDE = 640;
const NARROW = 340;
const HEIGHT = 200;
/** Room for the value axis on the left and the day axis below. */
const LEFT = 56;
const BOTTOM = 28;
const TOP = 10;

/** "Nov 3" from "2026-11-03", in UTC like the days themselves. */
const dayLabel = (day: string) =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString('en', { month: 'short', day: 'numeric', timeZone: 'UTC' });

/**
 * Deposits and spending per day as bars, with a value axis in TON, day labels and the totals; the
 * numbers behind the bars are in a table under "Daily numbers". An SVG drawn here, no library.
 */
export function SpendingChart({ days }: { days: Json[] }) {
  const narrow = window.matchMedia('(max-width: 640px)').matches;
  const WIDTH = narrow ? NARROW : WIDE;
  const every = narrow ? 10 : 7;
  const values = days.flatMap((d) => [Number(d.deposited), Number(d.spent)]);
  const top = niceCeiling(Math.max(0, ...values));
  const plotW = WIDTH - LEFT - 8;
  const plotH = HEIGHT - TOP - BOTTOM;
  const slot = plotW / Math.max(1, days.length);
  const y = (value: number) => TOP + plotH - (value / top) * plotH;
  const ticks = [0, top / 2, top];
  const spentTotal = days.reduce((sum, d) => sum + Number(d.spent), 0);
  const depositTotal = days.reduce((sum, d) => sum + Number(d.deposited), 0);
  const moved = days.filter((d) => d.deposited !== '0' || d.spent !== '0');
  // A day label every week (ten days on a phone), and the last day unless it would touch the one before.
  const last = days.length - 1;
  const labelled = new Set(
    days.map((_, i) => i).filter((i) => i % every === 0 || (i === last && last % every >= every / 2)),
  );
  const total = (n: number) => formatTon(String(Number(n.toFixed(9))));
  return (
    <figure className="card chart" aria-labelledby="spending-title">
      <figcaption>
        <h2 id="spending-title">Spending, last {days.length} days</h2>
        <p className="muted">
          <span className="swatch deposit" /> deposited {total(depositTotal)} TON ·{' '}
          <span className="swatch spent" /> spent {total(spentTotal)} TON
        </p>
      </figcaption>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        width="100%"
        role="img"
        aria-label={`Daily deposits and spending in TON: ${total(depositTotal)} deposited, ${total(spentTotal)} spent`}
      >
        {ticks.map((tick) => (
          <g key={tick} className="axis">
            <line
              x1={LEFT}
              x2={WIDTH - 8}
              y1={y(tick)}
              y2={y(tick)}
              className={tick === 0 ? 'base' : 'grid'}
            />
            <text x={LEFT - 6} y={y(tick) + 4} textAnchor="end">
              {formatTon(String(tick))}
            </text>
          </g>
        ))}
        <text x={4} y={TOP + 4} className="axis-unit">
          TON
        </text>
        {days.map((d, i) => {
          const x = LEFT + i * slot;
          return (
            <g key={d.day}>
              <title>{`${d.day}: deposited ${d.deposited} TON, spent ${d.spent} TON`}</title>
              <rect
                x={x + 1}
                y={y(Number(d.deposited))}
                width={Math.max(1, slot / 2 - 1)}
                height={plotH + TOP - y(Number(d.deposited))}
                className="deposit"
              />
              <rect
                x={x + slot / 2}
                y={y(Number(d.spent))}
                width={Math.max(1, slot / 2 - 1)}
                height={plotH + TOP - y(Number(d.spent))}
                className="spent"
              />
              {labelled.has(i) ? (
                <text x={x + slot / 2} y={HEIGHT - 8} textAnchor="middle" className="axis">
                  {dayLabel(d.day)}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <details>
        <summary>Daily numbers</summary>
        {moved.length === 0 ? (
          <p className="muted">No money moved in these days.</p>
        ) : (
          <table aria-label="Daily deposits and spending">
            <thead>
              <tr>
                <th>Day</th>
                <th className="num">Deposited</th>
                <th className="num">Spent</th>
              </tr>
            </thead>
            <tbody>
              {moved.map((d) => (
                <tr key={d.day}>
                  <td>{d.day}</td>
                  <td className="num">{formatAmount(d.deposited, 'TON')}</td>
                  <td className="num">{formatAmount(d.spent, 'TON')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </details>
    </figure>
  );
}
