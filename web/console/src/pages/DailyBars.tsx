import { niceCeiling } from '../chartScale';
import { type Currency, formatAmount, formatTon } from '../ton';

/** Drawn in these units; a phone gets a narrower drawing, so its text is not scaled down to nothing. */
const WIDE = 640;
const NARROW = 340;
const HEIGHT = 180;
/** Room for the value axis on the left and the day axis below. */
const LEFT = 56;
const BOTTOM = 28;
const TOP = 10;

/** "Nov 3" from "2026-11-03", in UTC like the days themselves. */
const dayLabel = (day: string) =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString('en', { month: 'short', day: 'numeric', timeZone: 'UTC' });

export interface BarSeries {
  /** The day's field holding this series' amount. */
  field: string;
  label: string;
  /** The CSS class that colours its bars and swatch. */
  className: string;
}

/**
 * Amounts of one currency per UTC day as side-by-side bars, one per series, with a value axis,
 * day labels and each series' total; the numbers behind the bars are in a table under "Daily
 * numbers". The title names the currency, so the value axis carries numbers only. An SVG drawn here, no library (like SpendingChart, which draws the agent's deposits).
 */
export function DailyBars({
  id,
  title,
  currency,
  days,
  series,
}: {
  id: string;
  title: string;
  currency: Currency;
  days: { day: string; [field: string]: string }[];
  series: BarSeries[];
}) {
  const narrow = window.matchMedia('(max-width: 640px)').matches;
  const WIDTH = narrow ? NARROW : WIDE;
  const every = narrow ? 10 : 7;
  const amount = (d: { [field: string]: string }, s: BarSeries) => Number(d[s.field] ?? 0);
  const top = niceCeiling(Math.max(0, ...days.flatMap((d) => series.map((s) => amount(d, s)))));
  const plotW = WIDTH - LEFT - 8;
  const plotH = HEIGHT - TOP - BOTTOM;
  const slot = plotW / Math.max(1, days.length);
  const bar = Math.max(1, slot / series.length - 1);
  const y = (value: number) => TOP + plotH - (value / top) * plotH;
  const ticks = [0, top / 2, top];
  const decimals = currency === 'TON' ? 9 : 6;
  const total = (s: BarSeries) =>
    formatAmount(String(Number(days.reduce((sum, d) => sum + amount(d, s), 0).toFixed(decimals))), currency);
  const moved = days.filter((d) => series.some((s) => amount(d, s) !== 0));
  const last = days.length - 1;
  const labelled = new Set(
    days.map((_, i) => i).filter((i) => i % every === 0 || (i === last && last % every >= every / 2)),
  );
  const totals = series.map((s) => `${s.label} ${total(s)}`).join(', ');
  return (
    <figure className="chart" aria-labelledby={`${id}-title`}>
      <figcaption>
        <h3 id={`${id}-title`}>{title}</h3>
        <p className="muted">
          {series.map((s, i) => (
            <span key={s.field}>
              {i > 0 ? ' · ' : null}
              <span className={`swatch ${s.className}`} /> {s.label} {total(s)}
            </span>
          ))}
        </p>
      </figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} width="100%" role="img" aria-label={`${title}: ${totals}`}>
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
        {days.map((d, i) => {
          const x = LEFT + i * slot;
          return (
            <g key={d.day}>
              <title>{`${d.day}: ${series.map((s) => `${s.label} ${d[s.field]} ${currency}`).join(', ')}`}</title>
              {series.map((s, j) => (
                <rect
                  key={s.field}
                  x={x + 1 + j * (bar + 1)}
                  y={y(amount(d, s))}
                  width={bar}
                  height={plotH + TOP - y(amount(d, s))}
                  className={s.className}
                />
              ))}
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
          <p className="muted">Nothing in {currency} in these days.</p>
        ) : (
          <table aria-label={`${title}, per day`}>
            <thead>
              <tr>
                <th>Day</th>
                {series.map((s) => (
                  <th key={s.field} className="num">
                    {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {moved.map((d) => (
                <tr key={d.day}>
                  <td>{d.day}</td>
                  {series.map((s) => (
                    <td key={s.field} className="num">
                      {formatAmount(d[s.field], currency)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </details>
    </figure>
  );
}
