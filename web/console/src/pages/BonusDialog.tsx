import { useCallback, useEffect, useRef, useState } from 'react';
import { ErrorLine } from '../App';
import { ApiError, agentApi, api, type Json } from '../api';
import { type Currency, currencyOf, formatAmount } from '../ton';
import { when } from '../trust';

/** The amount is previewed this long after the last keystroke, not on every one. */
const PREVIEW_DELAY_MS = 300;

/**
 * Bonuses of a COMPLETED task (issue 40): the ones already paid, as the server recorded them, and
 * "Pay a bonus", a dialog that asks amount and reason, shows the fee and the total the server
 * would take (GET .../bonuses?amount=, payBonus's own rules), and pays with one Idempotency-Key
 * per opening, so a double click or a retry pays once.
 */
export function TaskBonuses({
  agentId,
  task,
  onChanged,
}: {
  agentId: string;
  task: Json;
  onChanged: () => void;
}) {
  const [info, setInfo] = useState<Json | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [opening, setOpening] = useState(0);
  const [paid, setPaid] = useState<Json | null>(null);
  const currency = currencyOf(task);
  const load = useCallback(() => {
    api('GET', `/agents/${agentId}/tasks/${task.id}/bonuses`)
      .then(setInfo)
      .catch((e) => setError(e.message));
  }, [agentId, task.id]);
  useEffect(load, [load]);
  if (!info) return <ErrorLine error={error} />;
  const settled = task.settlement?.bonuses;
  return (
    <section className="card" aria-labelledby="bonuses-title">
      <h2 id="bonuses-title">Bonuses</h2>
      {paid ? <PaidLine paid={paid} currency={currency} worker={task.worker?.firstName} /> : null}
      {info.bonuses.length === 0 ? (
        <p className="muted">No bonus paid on this task yet.</p>
      ) : (
        <>
          <ul aria-label="Bonuses paid" className="plain-list">
            {info.bonuses.map((b: Json) => (
              <li key={b.id}>
                <strong>{formatAmount(b.amount, currency)}</strong> (fee {formatAmount(b.fee, currency)}) ·{' '}
                {when(b.createdAt)} · “{b.reason}”
              </li>
            ))}
          </ul>
          {settled ? (
            <p className="muted">
              In all: {formatAmount(settled.amount, currency)} to the worker and{' '}
              {formatAmount(settled.fee, currency)} in fees, in {settled.count}{' '}
              {settled.count === 1 ? 'bonus' : 'bonuses'}.
            </p>
          ) : null}
        </>
      )}
      {info.left > 0 ? (
        <button
          type="button"
          className="primary"
          disabled={opening > 0}
          onClick={() => setOpening(Date.now())}
        >
          Pay a bonus
        </button>
      ) : (
        <p className="muted">{whyNoMore(info)}</p>
      )}
      {opening > 0 ? (
        <BonusDialog
          key={opening}
          agentId={agentId}
          task={task}
          info={info}
          onClose={() => setOpening(0)}
          onPaid={(answer) => {
            setPaid(answer);
            setOpening(0);
            load();
            onChanged();
          }}
        />
      ) : null}
    </section>
  );
}

function whyNoMore(info: Json): string {
  if (info.payableUntil === null) return 'This task takes no bonus: its worker was not paid.';
  if (new Date(info.payableUntil).getTime() < Date.now())
    return `Bonuses could be paid until ${when(info.payableUntil)}, 30 days after completion.`;
  return 'This task has had 5 bonuses, the most one task takes.';
}

function PaidLine({ paid, currency, worker }: { paid: Json; currency: Currency; worker?: string }) {
  const total = paid.bonus ? `${formatAmount(paid.bonus.amount, currency)}` : '';
  return (
    <p role="status" className="ok-line">
      Paid a bonus of {total} to {worker ?? 'the worker'} (fee {formatAmount(paid.bonus.fee, currency)}).{' '}
      {paid.payment.pending ? 'The transfer is on its way to their wallet.' : 'It is in their wallet.'}
    </p>
  );
}

/** A refusal of the bonus in words for a person: what happened and what to do; nothing was paid. */
function bonusRefusal(e: unknown, info: Json, total: string | null, currency: Currency): string {
  if (!(e instanceof ApiError)) return (e as Error).message;
  const message = e.message;
  if (e.status === 402)
    return `The agent's ${currency} balance (${formatAmount(info.balance, currency)}) does not cover ${total ? `${total}, the bonus and its fee` : 'the bonus and its fee'}. Top up the agent and try again; nothing was paid.`;
  if (e.status === 409 && /5 bonuses/.test(message))
    return 'This task already has 5 bonuses, the most one task takes. Nothing was paid.';
  if (e.status === 409 && /days/.test(message))
    return `Bonuses can be paid within 30 days of the task's completion, and that time is over. Nothing was paid.`;
  if (/at most/.test(message))
    return `A bonus can be at most 10 times the task's reward: ${formatAmount(info.maxAmount, currency)} here.`;
  if (/at least/.test(message))
    return `That amount is too small: ${message.replace(/^.*must be /, 'it must be ')}.`;
  if (/write|number|decimal/i.test(message)) return `Write the amount as a number, e.g. 2.5 (${currency}).`;
  return `${message}. Nothing was paid.`;
}

function BonusDialog({
  agentId,
  task,
  info,
  onClose,
  onPaid,
}: {
  agentId: string;
  task: Json;
  info: Json;
  onClose: () => void;
  onPaid: (answer: Json) => void;
}) {
  const currency = currencyOf(task);
  // One key per opening of the dialog: every click and retry in it is the same bonus.
  const [idempotencyKey] = useState(() => crypto.randomUUID());
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [quote, setQuote] = useState<Json | null>(null);
  const [amountError, setAmountError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const paying = useRef(false);
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => element?.close();
  }, []);
  useEffect(() => {
    setQuote(null);
    setAmountError(null);
    const value = amount.trim();
    if (!value) return;
    const timer = setTimeout(() => {
      api('GET', `/agents/${agentId}/tasks/${task.id}/bonuses?amount=${encodeURIComponent(value)}`)
        .then((r) => setQuote(r.quote))
        .catch((e) => setAmountError(bonusRefusal(e, info, null, currency)));
    }, PREVIEW_DELAY_MS);
    return () => clearTimeout(timer);
  }, [agentId, task.id, amount, info, currency]);

  const pay = async () => {
    if (paying.current || !quote) return;
    paying.current = true;
    setBusy(true);
    setError(null);
    try {
      const answer = await agentApi(
        agentId,
        'POST',
        `/tasks/${task.id}/bonus`,
        { amount: amount.trim(), reason: reason.trim() },
        { 'idempotency-key': idempotencyKey },
      );
      onPaid(answer);
    } catch (e) {
      setError(bonusRefusal(e, info, formatAmount(quote.total, currency), currency));
    } finally {
      paying.current = false;
      setBusy(false);
    }
  };
  const ready = quote !== null && reason.trim().length > 0 && !busy;
  return (
    <dialog ref={dialog} aria-labelledby="bonus-dialog-title" className="bonus-dialog" onCancel={onClose}>
      <h2 id="bonus-dialog-title">Pay {task.worker?.firstName ?? 'the worker'} a bonus</h2>
      <p className="muted">
        Up to {formatAmount(info.maxAmount, currency)} (10 times the reward); {info.left} of 5 bonuses left on
        this task, until {when(info.payableUntil)}.
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void pay();
        }}
      >
        <label className="field">
          Amount ({currency})
          <input
            inputMode="decimal"
            value={amount}
            onChange={(e) => setAmount(e.target.value)}
            autoComplete="off"
          />
        </label>
        {amountError ? (
          <p role="alert" className="error">
            {amountError}
          </p>
        ) : null}
        <label className="field">
          Reason (the worker reads it in Telegram)
          <textarea value={reason} maxLength={1000} rows={3} onChange={(e) => setReason(e.target.value)} />
        </label>
        {quote ? (
          <table aria-label="What the bonus costs" className="split">
            <tbody>
              <tr>
                <th scope="row">Bonus to the worker</th>
                <td className="num">{formatAmount(quote.amount, currency)}</td>
              </tr>
              <tr>
                <th scope="row">Platform fee (30%)</th>
                <td className="num">{formatAmount(quote.fee, currency)}</td>
              </tr>
              <tr>
                <th scope="row">Taken from the balance</th>
                <td className="num">
                  <strong>{formatAmount(quote.total, currency)}</strong>
                </td>
              </tr>
              <tr>
                <th scope="row">Balance now</th>
                <td className="num">{formatAmount(info.balance, currency)}</td>
              </tr>
            </tbody>
          </table>
        ) : null}
        {quote && !quote.enough ? (
          <p className="error">The balance does not cover this: top up the agent first.</p>
        ) : null}
        <div className="row">
          <button type="submit" className="primary" disabled={!ready}>
            {quote ? `Pay ${formatAmount(quote.total, currency)}` : 'Pay'}
          </button>
          <button type="button" onClick={onClose} disabled={busy}>
            Close
          </button>
        </div>
      </form>
      <ErrorLine error={error} />
    </dialog>
  );
}
