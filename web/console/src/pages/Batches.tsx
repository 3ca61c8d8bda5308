import { useCallback, useEffect, useState } from 'react';
import { ErrorLine } from '../App';
import { ApiError, agentApi, type Json } from '../api';
import { Stat, StatusBadge } from '../components';
import { labelOf, TASK_STATUS_LABEL, taskStatusLabel } from '../labels';
import { type Currency, currencyOf, decimalOf, formatAmount, unitsOf } from '../ton';
import { when } from '../trust';

/** Lists and the batch page are re-read this often, so progress shows without a reload. */
const REFRESH_MS = 5_000;
/** Statuses in the order a task goes through them, for the progress line. */
const STATUS_ORDER = [
  'OPEN',
  'FUNDED',
  'OFFERED',
  'ASSIGNED',
  'IN_PROGRESS',
  'REVIEW',
  'COMPLETED',
  'CANCELLED',
];
/**
 * Tasks a batch cancel refunds: nobody handed in work, no dispute open, not ended (the server's
 * rule, POST /batches/:id/cancel; it decides again and answers with what it did).
 */
const REFUNDABLE = ['OPEN', 'FUNDED', 'OFFERED', 'ASSIGNED', 'IN_PROGRESS'];
/** The largest page GET /agents/tasks gives; a batch holds up to 500. */
const PAGE = 100;

/** "3 Completed · 2 Open for applications": the batch's tasks counted by status, none left out. */
function progressOf(batch: Json): string {
  const counts: Record<string, number> = batch.counts ?? {};
  return STATUS_ORDER.filter((s) => (counts[s] ?? 0) > 0)
    .map((s) => `${counts[s]} ${labelOf(TASK_STATUS_LABEL, s)}`)
    .join(' · ');
}

/** The agent's batches (issue 40) on its page: each with its progress, total and currency. */
export function BatchList({ agentId }: { agentId: string }) {
  const [batches, setBatches] = useState<Json[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const load = () =>
      agentApi(agentId, 'GET', '/batches?limit=20')
        .then((r) => setBatches(r.batches))
        .catch((e) => setError(e.message));
    void load();
    const timer = setInterval(load, REFRESH_MS);
    return () => clearInterval(timer);
  }, [agentId]);
  if (batches === null || (batches.length === 0 && !error)) return null;
  return (
    <section className="card" aria-labelledby="batches-title">
      <h2 id="batches-title">Batches</h2>
      <table aria-label="Batches" className="reflow">
        <thead>
          <tr>
            <th>Batch</th>
            <th>Progress</th>
            <th className="num">Tasks</th>
            <th className="num">Total</th>
            <th>Created</th>
          </tr>
        </thead>
        <tbody>
          {batches.map((b) => (
            <tr key={b.id}>
              <td data-label="Batch">
                <a href={`#/agents/${agentId}/batches/${b.id}`}>
                  <code>{b.id}</code>
                </a>
              </td>
              <td data-label="Progress">{progressOf(b)}</td>
              <td data-label="Tasks" className="num">
                {b.count}
              </td>
              <td data-label="Total" className="num">
                {formatAmount(b.totalAmount, currencyOf(b))}
              </td>
              <td data-label="Created">{when(b.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <ErrorLine error={error} />
    </section>
  );
}

/** Every task of the batch, page by page (at most 5 pages of 100). */
async function batchTasks(agentId: string, batchId: string): Promise<Json[]> {
  const tasks: Json[] = [];
  let cursor: string | null = null;
  do {
    const r: Json = await agentApi(
      agentId,
      'GET',
      `/agents/tasks?batchId=${batchId}&limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    tasks.push(...r.tasks);
    cursor = r.hasMore ? r.nextCursor : null;
  } while (cursor);
  return tasks;
}

/** The sum of the tasks' recorded totals, in their currency, exactly. */
function sumOf(tasks: Json[], currency: Currency): string {
  return decimalOf(
    tasks.reduce((sum, t) => sum + unitsOf(t.totalAmount, currency), 0n),
    currency,
  );
}

/**
 * One batch: its progress, its tasks, and "Cancel open tasks", which asks first naming every task
 * it will refund and the sum, then says which were refunded and which were left, and why (the
 * server's answer, not a guess).
 */
export function BatchPage({ agentId, batchId }: { agentId: string; batchId: string }) {
  const [batch, setBatch] = useState<Json | null>(null);
  const [tasks, setTasks] = useState<Json[]>([]);
  const [missing, setMissing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<Json | null>(null);
  const load = useCallback(() => {
    agentApi(agentId, 'GET', `/batches/${batchId}`)
      .then((r) => setBatch(r.batch))
      .catch((e) => {
        if (e instanceof ApiError && (e.status === 404 || e.status === 403)) setMissing(true);
        else setError(e.message);
      });
    batchTasks(agentId, batchId)
      .then(setTasks)
      .catch(() => undefined);
  }, [agentId, batchId]);
  useEffect(() => {
    load();
    const timer = setInterval(load, REFRESH_MS);
    return () => clearInterval(timer);
  }, [load]);

  const back = (
    <p>
      <a href={`#/agents/${agentId}`}>← Agent</a>
    </p>
  );
  if (missing) {
    return (
      <main>
        {back}
        <h1>Batch not found</h1>
        <p>
          There is no batch <code>{batchId}</code> for this agent. It may belong to another agent, or the link
          is mistyped.
        </p>
      </main>
    );
  }
  if (!batch) return error ? <ErrorLine error={error} /> : <p className="muted">Loading the batch…</p>;
  const currency = currencyOf(batch);
  const refundable = tasks.filter((t) => REFUNDABLE.includes(t.status) && t.dispute?.status !== 'OPEN');
  const titleOf = new Map(tasks.map((t) => [t.id, t.title]));
  const cancel = async () => {
    setBusy(true);
    setError(null);
    try {
      setResult(await agentApi(agentId, 'POST', `/batches/${batchId}/cancel`, {}));
      setConfirming(false);
      load();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main>
      {back}
      <h1>Batch of {batch.count} tasks</h1>
      <p className="muted">
        <code>{batch.id}</code> · created {when(batch.createdAt)}
      </p>
      <div className="stats wide">
        <Stat label="Tasks" value={batch.count} />
        <Stat label="Total escrowed" value={formatAmount(batch.totalAmount, currency)} />
        <Stat label="Currency" value={currency} />
        <Stat
          label="Per worker"
          value={batch.maxPerWorker === null ? 'No limit' : `At most ${batch.maxPerWorker}`}
        />
        <Stat label="Ended" value={batch.completedAt ? when(batch.completedAt) : 'Not yet'} />
      </div>
      <p>
        <strong>Progress:</strong> {progressOf(batch)}
      </p>

      <section className="card" aria-labelledby="batch-actions-title">
        <h2 id="batch-actions-title">Cancel open tasks</h2>
        {result ? (
          <CancelResult agentId={agentId} result={result} currency={currency} titleOf={titleOf} />
        ) : null}
        {refundable.length === 0 ? (
          <p className="muted">No task of this batch is open: there is nothing to cancel.</p>
        ) : (
          <>
            <p className="muted">
              {refundable.length} of {batch.count} tasks are still open (nobody has handed in work).
            </p>
            <button
              type="button"
              className="danger"
              disabled={busy || confirming}
              onClick={() => setConfirming(true)}
            >
              Cancel open tasks
            </button>
          </>
        )}
        {confirming && refundable.length > 0 ? (
          <section className="confirm danger" aria-label="Confirm cancelling the open tasks">
            <p>
              Cancel {refundable.length} open {refundable.length === 1 ? 'task' : 'tasks'} and refund{' '}
              <strong>{formatAmount(sumOf(refundable, currency), currency)}</strong> (rewards and fees) to the
              agent's {currency} balance? Workers holding one of them lose it and are told; waiting applicants
              are turned away. This cannot be undone.
            </p>
            <ul aria-label="Tasks to be refunded" className="plain-list">
              {refundable.map((t) => (
                <li key={t.id}>
                  {t.title} · {taskStatusLabel(t)} · {formatAmount(t.totalAmount, currency)}
                </li>
              ))}
            </ul>
            <p className="muted">
              Tasks with submitted work, an open dispute, or already ended are left as they are.
            </p>
            <div className="row">
              <button type="button" className="danger" disabled={busy} onClick={() => void cancel()}>
                Refund {formatAmount(sumOf(refundable, currency), currency)} and cancel
              </button>
              <button type="button" onClick={() => setConfirming(false)}>
                Keep the tasks
              </button>
            </div>
          </section>
        ) : null}
        <ErrorLine error={error} />
      </section>

      <section className="card" aria-labelledby="batch-tasks-title">
        <h2 id="batch-tasks-title">Tasks of the batch</h2>
        <table aria-label="Tasks of the batch" className="reflow">
          <thead>
            <tr>
              <th>Title</th>
              <th>Status</th>
              <th>Worker</th>
              <th className="num">Reward</th>
            </tr>
          </thead>
          <tbody>
            {tasks.map((t) => (
              <tr key={t.id}>
                <td data-label="Title" className="breakable">
                  <a href={`#/agents/${agentId}/tasks/${t.id}`}>{t.title}</a>
                </td>
                <td data-label="Status">
                  <StatusBadge status={t.status} label={taskStatusLabel(t)} />
                </td>
                <td data-label="Worker">
                  {t.worker ? t.worker.firstName : <span className="muted">—</span>}
                </td>
                <td data-label="Reward" className="num">
                  {formatAmount(t.reward, currency)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </main>
  );
}

/**
 * Why a task was left, for a person: the server's reason is written for an agent (it names API
 * routes), so the console says it from the task's status and falls back to the server's words.
 */
function keptReason(kept: Json): string {
  if (kept.status === 'COMPLETED' || kept.status === 'CANCELLED') return 'it had already ended';
  if (/dispute is open/i.test(kept.reason)) return 'a dispute is open on it; the operator decides it';
  if (kept.status === 'REVIEW')
    return 'work was handed in: approve it, ask for a revision or open a dispute on its page';
  return kept.reason;
}

/** What the cancel did, from its answer: the refunded tasks and sum, and each task left with why. */
function CancelResult({
  agentId,
  result,
  currency,
  titleOf,
}: {
  agentId: string;
  result: Json;
  currency: Currency;
  titleOf: Map<string, string>;
}) {
  const name = (id: string) => titleOf.get(id) ?? id;
  return (
    <div role="status" aria-label="Cancel result">
      <p className="ok-line">
        {result.refunded.length === 0
          ? 'Nothing was refunded: no task of the batch was still open.'
          : `Refunded ${result.refunded.length} ${result.refunded.length === 1 ? 'task' : 'tasks'}: ${formatAmount(result.refundedAmount, currency)} is back in the balance.`}
      </p>
      {result.refunded.length > 0 ? (
        <ul aria-label="Refunded" className="plain-list">
          {result.refunded.map((id: string) => (
            <li key={id}>{name(id)}</li>
          ))}
        </ul>
      ) : null}
      {result.notRefunded.length > 0 ? (
        <>
          <p>Left as they are:</p>
          <ul aria-label="Not refunded" className="plain-list">
            {result.notRefunded.map((k: Json) => (
              <li key={k.id}>
                <a href={`#/agents/${agentId}/tasks/${k.id}`}>{name(k.id)}</a> ·{' '}
                {labelOf(TASK_STATUS_LABEL, k.status)}: {keptReason(k)}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </div>
  );
}
