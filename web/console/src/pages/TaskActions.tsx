import { useState } from 'react';
import { ErrorLine } from '../App';
import type { Json } from '../api';
import { Confirm, useAgentCall } from '../components';
import { currencyOf, formatAmount } from '../ton';

/** Nobody works on the task yet: cancelling is plain (DELETE /tasks/:id). */
const UNASSIGNED = ['OPEN', 'FUNDED', 'OFFERED'];
/** A worker holds it and has not handed in work: cancelling refunds (POST /tasks/:id/refund). */
const ASSIGNED = ['ASSIGNED', 'IN_PROGRESS'];

type Pending = 'cancel' | 'complete' | null;

/**
 * What the owner can do with a task outside the review of submitted work (TaskReview does that):
 * cancel it (the total returns to the balance) while no work waits, or complete it and pay the
 * worker while they hold it. Each asks for a confirmation naming the money that moves. The calls
 * are the agent API's own routes (the console acts as the owner's agent), so validation, limits
 * and idempotency are the API's.
 */
export function TaskActions({
  agentId,
  task,
  onChanged,
}: {
  agentId: string;
  task: Json;
  onChanged: () => void;
}) {
  const [pending, setPending] = useState<Pending>(null);
  const call = useAgentCall(agentId, onChanged);
  const { busy, error, done } = call;
  const disputed = task.dispute?.status === 'OPEN';
  const canCancel = !disputed && (UNASSIGNED.includes(task.status) || ASSIGNED.includes(task.status));
  const canComplete = !disputed && ASSIGNED.includes(task.status);
  if (!canCancel && !canComplete && !done && !error) return null;

  const run = (method: string, path: string, message: string) =>
    call.run(method, path, undefined, message, () => setPending(null));
  const cancel = () =>
    UNASSIGNED.includes(task.status)
      ? run(
          'DELETE',
          `/tasks/${task.id}`,
          `Cancelled: ${formatAmount(task.totalAmount, currencyOf(task))} is back in the balance.`,
        )
      : run(
          'POST',
          `/tasks/${task.id}/refund`,
          `Cancelled: ${formatAmount(task.totalAmount, currencyOf(task))} is back in the balance; the worker was told.`,
        );

  return (
    <section className="card" aria-labelledby="actions-title">
      <h2 id="actions-title">Actions</h2>
      {done ? (
        <p role="status" className="ok-line">
          {done}
        </p>
      ) : null}
      <div className="row">
        {canComplete ? (
          <button type="button" className="primary" disabled={busy} onClick={() => setPending('complete')}>
            Complete and pay
          </button>
        ) : null}
        {canCancel ? (
          <button type="button" disabled={busy} onClick={() => setPending('cancel')}>
            Cancel task
          </button>
        ) : null}
      </div>
      {pending === 'complete' ? (
        <Confirm
          label="Confirm completion"
          busy={busy}
          act={`Pay ${formatAmount(task.reward, currencyOf(task))} and complete`}
          onAct={() =>
            void run(
              'POST',
              `/tasks/${task.id}/complete`,
              'Completed: the reward is on its way to the worker.',
            )
          }
          back="Keep the task"
          onBack={() => setPending(null)}
        >
          <p>
            Complete the task without waiting for submitted work, and pay{' '}
            {task.worker?.firstName ?? 'the worker'}{' '}
            <strong>{formatAmount(task.reward, currencyOf(task))}</strong>? This cannot be undone.
          </p>
        </Confirm>
      ) : null}
      {pending === 'cancel' ? (
        <Confirm
          label="Confirm cancellation"
          busy={busy}
          act="Cancel the task"
          onAct={() => void cancel()}
          back="Keep the task"
          onBack={() => setPending(null)}
        >
          <p>
            Cancel the task? {formatAmount(task.totalAmount, currencyOf(task))} (reward and fee) returns to
            the agent's balance
            {ASSIGNED.includes(task.status) ? ', and the worker loses the task' : ''}.
          </p>
        </Confirm>
      ) : null}
      <ErrorLine error={error} />
    </section>
  );
}
