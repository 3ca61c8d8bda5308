import { type FormEvent, useState } from 'react';
import { ErrorLine } from '../App';
import { adminApi, type Json } from '../api';
import { amountAtPercent, percentOf, type Split, splitForInput } from '../split';
import { type Currency, currencyOf, decimalOf } from '../ton';

/**
 * The operator's decision: how much of the reward goes to the worker (a slider in percent, or
 * the exact amount), and a note both sides read. The split between worker, platform fee and
 * agent is shown as it changes, and once more to confirm before anything is sent.
 */
export function ResolveForm({
  token,
  disputeId,
  task,
  onResolved,
}: {
  token: string;
  disputeId: string;
  task: Json;
  onResolved: () => void;
}) {
  const reward: string = task.reward;
  const fee: string = task.platformFee;
  const currency = currencyOf(task);
  const [amount, setAmount] = useState(() => amountAtPercent(reward, 50, currency));
  const [note, setNote] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const split = splitForInput(reward, fee, amount, currency);
  const valid = !('error' in split);
  const percent = percentOf(reward, amount, currency);

  const review = (event: FormEvent) => {
    event.preventDefault();
    if (valid && note.trim()) setConfirming(true);
  };
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await adminApi(token, `/admin/disputes/${encodeURIComponent(disputeId)}/resolve`, 'POST', {
        workerAmount: amount.trim(),
        note: note.trim(),
      });
      setConfirming(false);
      onResolved();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card" aria-labelledby="resolve-title">
      <h2 id="resolve-title">Resolve the dispute</h2>
      <form onSubmit={review} className="stack">
        <label className="block">
          Share of the reward to the worker: {percent === null ? '—' : `${percent}%`}
          <input
            type="range"
            min={0}
            max={100}
            step={1}
            value={percent ?? 0}
            disabled={confirming}
            aria-label="Share of the reward to the worker, percent"
            onChange={(e) => setAmount(amountAtPercent(reward, Number(e.target.value), currency))}
          />
        </label>
        <div className="row">
          <label>
            Worker’s amount ({currency}){' '}
            <input
              value={amount}
              inputMode="decimal"
              size={14}
              disabled={confirming}
              onChange={(e) => setAmount(e.target.value)}
              aria-invalid={!valid}
            />
          </label>
          <button type="button" disabled={confirming} onClick={() => setAmount('0')}>
            Nothing
          </button>
          <button type="button" disabled={confirming} onClick={() => setAmount(reward)}>
            Whole reward
          </button>
        </div>
        {valid ? <SplitTable split={split} currency={currency} /> : <p className="error">{split.error}</p>}
        <label className="block">
          Note to both sides
          <textarea
            rows={3}
            maxLength={2000}
            value={note}
            disabled={confirming}
            onChange={(e) => setNote(e.target.value)}
            required
          />
        </label>
        {confirming ? null : (
          <div className="row">
            <button type="submit" className="primary" disabled={!valid || !note.trim()}>
              Review the decision
            </button>
          </div>
        )}
      </form>
      {confirming && valid ? (
        <section className="confirm" aria-label="Confirm the decision">
          <p>
            <strong>{outcome(split, reward, currency)}</strong> This is sent at once and cannot be undone.
          </p>
          <SplitTable split={split} currency={currency} />
          <div className="row">
            <button type="button" className="primary" disabled={busy} onClick={() => void confirm()}>
              Confirm resolution
            </button>
            <button type="button" disabled={busy} onClick={() => setConfirming(false)}>
              Change
            </button>
          </div>
        </section>
      ) : null}
      <ErrorLine error={error} />
    </section>
  );
}

function outcome(split: Split, reward: string, currency: Currency): string {
  if (split.worker === 0n) return 'The task is cancelled and the agent gets everything back.';
  // All of the reward to the worker takes all of the fee too: nothing goes back.
  if (split.agent === 0n) return 'The task is completed and the worker gets the whole reward.';
  return `The task is completed with a partial payment of ${decimalOf(split.worker, currency)} ${currency} of ${reward} ${currency}.`;
}

/** Worker / platform fee / back to the agent, in the task's currency, exactly. */
function SplitTable({ split, currency }: { split: Split; currency: Currency }) {
  return (
    <table aria-label="Split" className="split">
      <tbody>
        <tr>
          <th scope="row">To the worker, on chain</th>
          <td>
            {decimalOf(split.worker, currency)} {currency}
          </td>
        </tr>
        <tr>
          <th scope="row">Platform fee</th>
          <td>
            {decimalOf(split.fee, currency)} {currency}
          </td>
        </tr>
        <tr>
          <th scope="row">Back to the agent’s balance</th>
          <td>
            {decimalOf(split.agent, currency)} {currency}
          </td>
        </tr>
      </tbody>
    </table>
  );
}
