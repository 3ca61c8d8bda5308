import type { TFunction } from 'i18next';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  type Application,
  api,
  batchLimitReached,
  loadTask,
  type Submission,
  type Task,
  type Worker,
} from '../api';
import { formatAmount, formatRelative, paidLessThanReward } from '../format';
import { onRefresh } from '../freshness';
import type { WorkerTaskState } from '../labels';
import {
  confirmAction,
  haptic,
  useClosingConfirmation,
  useMainButton,
  useSecondaryButton,
} from '../telegram';
import { ErrorNote, Loading, Section, useLoad } from '../ui';
import { AgentInfo, Place } from './AboutTask';
import { Chat } from './Chat';
import { Completed } from './Completed';
import { DisputeScreen } from './DisputeScreen';
import { OpenChat } from './OpenChat';
import { ReviewCountdown, RevisionNotice, SubmissionView } from './Review';
import { SubmitWork } from './SubmitWork';
import { BatchPlaces, deadlineText, rewardShown, StatePill, stateOf } from './TaskCard';
import { TaskSafety } from './TaskSafety';

const MINE: Task['status'][] = ['ASSIGNED', 'IN_PROGRESS', 'REVIEW', 'COMPLETED'];

/** What the task screen shows: the task itself, the "Submit work" form, the dispute or the chat. */
export type TaskView = 'task' | 'submit' | 'dispute' | 'chat';

/** A task: what it is, what it is to this worker now, and what they can do with it. */
export function TaskDetail({
  task: initial,
  me,
  view,
  onView,
  onChanged,
  onNeedWallet,
  onBlocked,
}: {
  task: Task;
  me: Worker;
  view: TaskView;
  onView: (view: TaskView) => void;
  onChanged: () => void;
  /** "Connect a wallet" from this task: the wallet screen, which comes back here afterwards. */
  onNeedWallet: (task: Task) => void;
  /** The worker blocked the task's agent: the task leaves the screen and the lists. */
  onBlocked: () => void;
}) {
  const { t } = useTranslation();
  const [task, setTask] = useState(initial);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const application = useLoad(async () => {
    const { applications } = await api<{ applications: Application[] }>(
      'GET',
      '/worker/applications?limit=100',
    );
    return applications.find((a) => a.taskId === task.id) ?? null;
  }, task.id);
  const own = application.data?.status ?? task.yourApplication ?? null;
  const state = stateOf(task, own);
  // Held by this worker (an application's task someone else holds is not theirs).
  const mine =
    (MINE.includes(task.status) || Boolean(task.dispute)) && own !== 'REJECTED' && own !== 'PENDING';
  const offered = state === 'offered';
  // The worker's submissions, newest first; read again whenever the task changes state.
  const submissions = useLoad(
    async () =>
      mine
        ? (await api<{ submissions: Submission[] }>('GET', `/worker/tasks/${task.id}/submissions`))
            .submissions
        : [],
    `${task.id}:${task.status}:${mine}:${task.dispute?.status ?? ''}`,
  );

  // The list the task came from is a summary: the task's own view has its submission, dispute,
  // applicant count and the rating given. A task someone else holds now is not readable (404):
  // the summary stays, and says what the task is to this worker.
  // Read again whenever the screens should be fresh (freshness.ts): the agent may have accepted,
  // asked for changes or paid since this screen opened.
  useEffect(() => {
    const read = () =>
      loadTask(initial.id).then(
        (fresh) => setTask((current) => ({ ...current, ...fresh })),
        () => undefined,
      );
    void read();
    return onRefresh(() => void read());
  }, [initial.id]);

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
  useClosingConfirmation(message.trim() !== '' && view === 'task');
  // A batch's card: applying takes its next open place, unless this worker holds all it allows.
  const batch = task.batch;
  const canApply =
    state === 'open' &&
    application.data === null &&
    !application.loading &&
    !(batch && batchLimitReached(batch));
  const apply = () =>
    act(async () => {
      const path = batch
        ? `/worker/batches/${batch.id}/applications`
        : `/worker/tasks/${task.id}/applications`;
      const res = await api<{ application: Application }>('POST', path, { message });
      application.set(res.application);
      setMessage('');
      setTask((current) => ({ ...current, applicants: (current.applicants ?? 0) + 1 }));
    });
  const acceptOffer = () =>
    act(async () => {
      const res = await api<{ task: Task }>('POST', `/worker/offers/${task.id}/accept`);
      setTask((current) => ({ ...current, ...res.task }));
      application.reload();
    });
  const declineOffer = async () => {
    haptic.selection();
    const sure = await confirmAction({
      title: t('task.declineTitle'),
      message: t('task.declineQuestion'),
      confirm: t('task.declineConfirm'),
      cancel: t('common.cancel'),
      destructive: true,
    }).catch(() => false);
    if (!sure) return;
    await act(async () => {
      const res = await api<{ task: Task }>('POST', `/worker/offers/${task.id}/decline`);
      setTask((current) => ({ ...current, ...res.task, yourApplication: 'DECLINED' }));
      application.reload();
    });
  };
  const start = () =>
    act(async () => {
      const res = await api<{ task: Task }>('PATCH', `/worker/tasks/${task.id}`, { status: 'IN_PROGRESS' });
      setTask((current) => ({ ...current, ...res.task }));
    });

  const latest = submissions.data?.[0] ?? null;
  const disputeOpen = task.dispute?.status === 'OPEN';
  const revision = task.status === 'IN_PROGRESS' && latest?.status === 'REVISION_REQUESTED';
  const canSubmit = mine && (task.status === 'ASSIGNED' || task.status === 'IN_PROGRESS') && !disputeOpen;
  const canDispute = revision && !task.dispute;
  const submitText = revision ? t('task.submitAgain') : t('task.submit');

  const main =
    view !== 'task'
      ? null
      : canApply
        ? me.walletAddress
          ? { text: t('task.sendApplication'), onClick: apply, busy }
          : { text: t('task.connectWallet'), onClick: () => onNeedWallet(task) }
        : offered
          ? { text: t('task.acceptOffer'), onClick: acceptOffer, busy }
          : canSubmit && !submissions.loading
            ? { text: submitText, onClick: () => onView('submit') }
            : null;
  const native = useMainButton(main);
  const second = view === 'task' && offered ? { text: t('task.decline'), onClick: declineOffer, busy } : null;
  const nativeSecond = useSecondaryButton(second);

  if (view === 'submit' && canSubmit) {
    return (
      <SubmitWork
        task={task}
        again={revision}
        previous={revision ? latest : null}
        onSubmitted={(next) => {
          setTask((current) => ({ ...current, ...next }));
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
    return <DisputeScreen task={task} onTask={(next) => setTask((current) => ({ ...current, ...next }))} />;
  }

  const deadline = deadlineText(t, task);
  const known = task.createdAt !== '';
  return (
    <article className="detail" aria-labelledby="task-title">
      <header className="detail-head">
        <h1 id="task-title">{task.title}</h1>
        <p className="detail-reward">
          <span className="reward big">{rewardShown(t, task)}</span>
          <StatePill state={state} />
        </p>
        {known ? (
          <p className="muted small">
            {[
              t('task.from', { agent: task.agent.name ?? t('task.anAgent') }),
              t('task.posted', { when: formatRelative(task.createdAt) }),
              deadline,
            ]
              .filter(Boolean)
              .join(' · ')}
          </p>
        ) : null}
      </header>
      <p
        className={lostToOperator(task, state) ? 'notice warn' : 'notice'}
        role="status"
        aria-label={t('task.whereYouStand')}
      >
        {standSentence(t, task, state)}
      </p>
      {/* The dispute comes first: it holds the task, and nothing that loads later (the revision
          notice, the application check) may push its button away from under a tap. */}
      {task.dispute ? (
        <div className="notice" role="status" aria-label={t('task.dispute')}>
          <p>{disputeOpen ? t('task.disputeOpen') : t('task.disputeDecided')}</p>
          <button type="button" className="secondary wide" onClick={() => onView('dispute')}>
            {t('task.viewDispute')}
          </button>
        </div>
      ) : null}
      {batch && state === 'open' ? (
        <p className="batch-note">
          <BatchPlaces batch={batch} />
          {canApply ? <span className="muted small"> {t('task.batchApply')}</span> : null}
        </p>
      ) : null}
      {task.description ? <p className="description">{task.description}</p> : null}
      <ErrorNote error={error} />
      {application.loading && !application.data && !mine ? <Loading label={t('task.checking')} /> : null}

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
              <span>{t('task.messageLabel')}</span>
              <textarea
                rows={3}
                maxLength={2000}
                value={message}
                onChange={(e) => setMessage(e.target.value)}
                placeholder={t('task.messagePlaceholder')}
              />
            </label>
            {native ? null : (
              <button type="submit" disabled={busy}>
                {t('task.sendApplication')}
              </button>
            )}
          </form>
        ) : (
          <div className="notice">
            <p>{t('task.needWallet')}</p>
            {native ? null : (
              <button type="button" onClick={() => onNeedWallet(task)}>
                {t('task.connectWallet')}
              </button>
            )}
          </div>
        )
      ) : null}

      {offered && !(native && nativeSecond) ? (
        <div className="row">
          {native ? null : (
            <button type="button" onClick={acceptOffer} disabled={busy}>
              {t('task.acceptOffer')}
            </button>
          )}
          {nativeSecond ? null : (
            <button type="button" className="secondary" onClick={declineOffer} disabled={busy}>
              {t('task.decline')}
            </button>
          )}
        </div>
      ) : null}

      {mine && task.status === 'ASSIGNED' ? (
        <button type="button" className="secondary wide" onClick={start} disabled={busy}>
          {t('task.start')}
        </button>
      ) : null}
      {revision && latest && !disputeOpen ? <RevisionNotice submission={latest} /> : null}
      {canSubmit && !native ? (
        <button type="button" className="wide" onClick={() => onView('submit')}>
          {submitText}
        </button>
      ) : null}
      {canDispute ? (
        <button type="button" className="secondary wide" onClick={() => onView('dispute')}>
          {t('task.openDispute')}
        </button>
      ) : null}
      {mine && task.status === 'REVIEW' && !disputeOpen ? (
        task.reviewDeadline ? (
          <ReviewCountdown deadline={task.reviewDeadline} />
        ) : (
          <p className="notice">{t('task.submitted')}</p>
        )
      ) : null}
      {mine && task.status === 'COMPLETED' ? <Completed task={task} /> : null}
      {task.location ? <Place location={task.location} /> : null}
      {known ? (
        <AgentInfo
          agent={task.agent}
          applicants={task.applicants}
          open={state === 'open' || state === 'applied'}
        />
      ) : null}
      {submissions.data && submissions.data.length > 0 ? (
        <Section title={t('task.yourSubmissions')} plain>
          <div className="stack">
            {submissions.data.map((s) => (
              <SubmissionView key={s.id} submission={s} />
            ))}
          </div>
        </Section>
      ) : null}
      <ErrorNote error={submissions.error} onRetry={submissions.reload} />
      {mine ? <OpenChat taskId={task.id} onOpen={() => onView('chat')} /> : null}
      {known ? <TaskSafety task={task} onBlocked={onBlocked} /> : null}
    </article>
  );
}

/** An operator decided the task's dispute for the agent: the worker was paid nothing. */
const lostToOperator = (task: Task, state: WorkerTaskState) =>
  state === 'cancelled' && task.settlement?.decidedBy === 'operator';

/**
 * What the task is to the worker, in a sentence: the state's own words, or, once the task ended,
 * who decided and what was paid, read from its settlement (an operator's decision is never "The
 * agent cancelled", a split is never "Done and paid").
 */
function standSentence(t: TFunction, task: Task, state: WorkerTaskState): string {
  const settlement = task.settlement;
  if (lostToOperator(task, state)) return t('status.detail.cancelledByOperator');
  if (state === 'completed' && settlement) {
    const paid = paidLessThanReward(task);
    const reward = formatAmount(task.reward, task.currency);
    if (settlement.decidedBy === 'operator')
      return paid === null
        ? t('status.detail.completedByOperatorAll', { paid: reward })
        : t('status.detail.completedByOperator', { paid: formatAmount(paid, task.currency), reward });
    if (paid !== null)
      return t('status.detail.completedInPart', { paid: formatAmount(paid, task.currency), reward });
  }
  return t(`status.detail.${state}`);
}
