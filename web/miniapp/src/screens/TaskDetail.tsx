import { useEffect, useState } from 'react';
import { type Application, api, loadTask, type Submission, type Task, ton, type Worker } from '../api';
import { APPLICATION_LABEL, taskStatusLabel } from '../labels';
import { haptic, useMainButton } from '../telegram';
import { ErrorNote, Loading, useLoad } from '../ui';
import { AgentInfo, Place } from './AboutTask';
import { Chat } from './Chat';
import { Completed } from './Completed';
import { DisputeScreen } from './DisputeScreen';
import { OpenChat } from './OpenChat';
import { ReviewCountdown, RevisionNotice, SubmissionView } from './Review';
import { SubmitWork } from './SubmitWork';
import { deadlineText } from './TaskCard';

const MINE: Task['status'][] = ['ASSIGNED', 'IN_PROGRESS', 'REVIEW', 'COMPLETED'];

/** What the task screen shows: the task itself, the "Submit work" form, the dispute or the chat. */
export type TaskView = 'task' | 'submit' | 'dispute' | 'chat';

/** A task: what it is, and what the worker can do with it now. */
export function TaskDetail({
  task: initial,
  me,
  view,
  onView,
  onChanged,
  onNeedWallet,
}: {
  task: Task;
  me: Worker;
  view: TaskView;
  onView: (view: TaskView) => void;
  onChanged: () => void;
  onNeedWallet: () => void;
}) {
  const [task, setTask] = useState(initial);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const mine = MINE.includes(task.status) || Boolean(task.dispute);
  const offered = task.status === 'OFFERED';
  const application = useLoad(async () => {
    const { applications } = await api<{ applications: Application[] }>(
      'GET',
      '/worker/applications?limit=100',
    );
    return applications.find((a) => a.taskId === task.id) ?? null;
  }, task.id);
  // The worker's submissions, newest first; read again whenever the task changes state.
  const submissions = useLoad(
    async () =>
      mine
        ? (await api<{ submissions: Submission[] }>('GET', `/worker/tasks/${task.id}/submissions`))
            .submissions
        : [],
    `${task.id}:${task.status}:${mine}:${task.dispute?.status ?? ''}`,
  );

  // The list the task came from is a summary: the task's own view has its submission and dispute.
  useEffect(() => {
    // An open task's summary is all there is (with the agent's record); only the worker's own
    // tasks have a submission or a dispute to read.
    if (!MINE.includes(initial.status) && initial.status !== 'CANCELLED') return;
    loadTask(initial.id).then(
      (fresh) => setTask((t) => ({ ...t, ...fresh })),
      () => undefined, // Not visible to this worker any more: the summary stays.
    );
  }, [initial.id, initial.status]);

  const act = async (run: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await run();
      haptic.success();
      onChanged();
    } catch (e) {
      setError(e);
      haptic.error();
    } finally {
      setBusy(false);
    }
  };

  const [message, setMessage] = useState('');
  const canApply =
    !mine && !offered && application.data === null && (task.status === 'OPEN' || task.status === 'FUNDED');
  const apply = () =>
    act(async () => {
      const res = await api<{ application: Application }>('POST', `/worker/tasks/${task.id}/applications`, {
        message,
      });
      application.set(res.application);
    });
  const acceptOffer = () =>
    act(async () => {
      const res = await api<{ task: Task }>('POST', `/worker/offers/${task.id}/accept`);
      setTask(res.task);
    });
  const declineOffer = () =>
    act(async () => {
      const res = await api<{ task: Task }>('POST', `/worker/offers/${task.id}/decline`);
      setTask(res.task);
    });
  const start = () =>
    act(async () => {
      const res = await api<{ task: Task }>('PATCH', `/worker/tasks/${task.id}`, { status: 'IN_PROGRESS' });
      setTask((t) => ({ ...t, ...res.task }));
    });

  const latest = submissions.data?.[0] ?? null;
  const disputeOpen = task.dispute?.status === 'OPEN';
  const revision = task.status === 'IN_PROGRESS' && latest?.status === 'REVISION_REQUESTED';
  const canSubmit = (task.status === 'ASSIGNED' || task.status === 'IN_PROGRESS') && !disputeOpen;
  const canDispute = revision && !task.dispute;
  const submitText = revision ? 'Submit work again' : 'Submit work';

  const main =
    view !== 'task'
      ? null
      : canApply && me.walletAddress
        ? { text: 'Send application', onClick: apply, busy }
        : offered
          ? { text: 'Accept offer', onClick: acceptOffer, busy }
          : canSubmit && !submissions.loading
            ? { text: submitText, onClick: () => onView('submit') }
            : null;
  const native = useMainButton(main);

  if (view === 'submit' && canSubmit) {
    return (
      <SubmitWork
        task={task}
        again={revision}
        onSubmitted={(next) => {
          setTask((t) => ({ ...t, ...next }));
          onView('task');
          onChanged();
        }}
      />
    );
  }
  if (view === 'chat' && mine) {
    return <Chat task={task} closed={task.status === 'COMPLETED' || task.status === 'CANCELLED'} />;
  }
  if (view === 'dispute' && (task.dispute || canDispute)) {
    return <DisputeScreen task={task} onTask={(next) => setTask((t) => ({ ...t, ...next }))} />;
  }

  return (
    <article className="detail" aria-labelledby="task-title">
      <h1 id="task-title">{task.title}</h1>
      <p className="card-row">
        <span className="reward big">{ton(task.reward)}</span>
        <span className="pill">{taskStatusLabel(task.status, task.dispute)}</span>
      </p>
      <p className="muted small">
        From {task.agent.name ?? 'an agent'} · {deadlineText(task)}
      </p>
      <p className="description">{task.description}</p>
      <ErrorNote error={error} />

      {canApply ? (
        me.walletAddress ? (
          <form
            className="stack"
            onSubmit={(e) => {
              e.preventDefault();
              void apply();
            }}
          >
            <label>
              <span>Message to the agent</span>
              <textarea
                rows={3}
                maxLength={2000}
                value={message}
                onChange={(e) => setMessage(e.target.value)}
                placeholder="Why you are the right person"
              />
            </label>
            {native ? null : (
              <button type="submit" disabled={busy}>
                Send application
              </button>
            )}
          </form>
        ) : (
          <div className="notice">
            <p>Connect a TON wallet before applying: rewards are paid to it.</p>
            <button type="button" onClick={onNeedWallet}>
              Connect a wallet
            </button>
          </div>
        )
      ) : null}
      {application.loading && !mine ? <Loading label="Checking your application…" /> : null}
      {application.data && !mine ? (
        <p className="notice" role="status">
          {application.data.status === 'PENDING'
            ? 'You applied. The agent will answer here and in Telegram.'
            : application.data.status === 'REJECTED'
              ? 'The agent chose someone else this time.'
              : `Your application: ${APPLICATION_LABEL[application.data.status].toLowerCase()}`}
        </p>
      ) : null}

      {offered ? (
        <div className="row">
          <p className="muted small">
            The agent offered this task to you. Accepting starts the execution deadline.
          </p>
          {native ? null : (
            <button type="button" onClick={acceptOffer} disabled={busy}>
              Accept offer
            </button>
          )}
          <button type="button" className="secondary" onClick={declineOffer} disabled={busy}>
            Decline offer
          </button>
        </div>
      ) : null}

      {task.status === 'ASSIGNED' ? (
        <button type="button" className={native ? undefined : 'secondary'} onClick={start} disabled={busy}>
          Start work
        </button>
      ) : null}
      {revision && latest && !disputeOpen ? <RevisionNotice submission={latest} /> : null}
      {canSubmit && !native ? (
        <button type="button" onClick={() => onView('submit')}>
          {submitText}
        </button>
      ) : null}
      {canDispute ? (
        <button type="button" className="secondary" onClick={() => onView('dispute')}>
          Open a dispute
        </button>
      ) : null}
      {task.status === 'REVIEW' && !disputeOpen ? (
        task.reviewDeadline ? (
          <ReviewCountdown deadline={task.reviewDeadline} />
        ) : (
          <p className="notice">Submitted: the agent reviews your work and completes the task to pay you.</p>
        )
      ) : null}
      {task.dispute ? (
        <div className="notice" role="status" aria-label="Dispute">
          <p>
            {disputeOpen
              ? 'This task is in dispute: an operator from Handoff will decide. The reward stays locked until then.'
              : 'The dispute about this task was decided.'}
          </p>
          <button type="button" className="secondary" onClick={() => onView('dispute')}>
            View the dispute
          </button>
        </div>
      ) : null}
      {task.status === 'COMPLETED' ? <Completed task={task} /> : null}
      {task.location ? <Place location={task.location} /> : null}
      <AgentInfo agent={task.agent} />
      {submissions.data && submissions.data.length > 0 ? (
        <section className="section" aria-label="Your submissions">
          <h2>Your submissions</h2>
          <div className="stack">
            {submissions.data.map((s) => (
              <SubmissionView key={s.id} submission={s} />
            ))}
          </div>
        </section>
      ) : null}
      <ErrorNote error={submissions.error} onRetry={submissions.reload} />
      {mine ? <OpenChat taskId={task.id} onOpen={() => onView('chat')} /> : null}
    </article>
  );
}
