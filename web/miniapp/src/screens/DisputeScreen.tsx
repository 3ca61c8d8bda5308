import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, type Dispute, loadTask, type Task, type Uploaded } from '../api';
import { type Currency, formatAmount, formatDateTime } from '../format';
import { reasonOf } from '../reason';
import { haptic, useClosingConfirmation, useMainButton } from '../telegram';
import { ErrorNote } from '../ui';
import { Files } from './Files';
import { PhotoPicker } from './PhotoPicker';

const MAX_TEXT = 2000;
const MAX_FILES = 10;

/**
 * The dispute about a task: opening one (after the agent asked for changes), then both sides'
 * statements with their evidence, and the operator's decision once made.
 */
export function DisputeScreen({ task, onTask }: { task: Task; onTask: (task: Task) => void }) {
  const { t } = useTranslation();
  const dispute = task.dispute ?? null;
  return (
    <article className="detail work-form" aria-labelledby="dispute-title">
      <h1 id="dispute-title">{t('dispute.title')}</h1>
      <p className="muted small subtitle">{t('dispute.about', { title: task.title })}</p>
      {dispute ? (
        <DisputeView task={task} dispute={dispute} onTask={onTask} />
      ) : (
        <OpenDispute task={task} onTask={onTask} />
      )}
    </article>
  );
}

function OpenDispute({ task, onTask }: { task: Task; onTask: (task: Task) => void }) {
  const { t } = useTranslation();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const ready = reason.trim().length > 0;
  useClosingConfirmation(ready);
  const open = async () => {
    if (!ready || busy) return;
    setBusy(true);
    setError(null);
    try {
      await api<{ dispute: Dispute }>('POST', `/worker/tasks/${task.id}/dispute`, { reason: reason.trim() });
      haptic.success();
      onTask(await loadTask(task.id));
    } catch (e) {
      setError(e);
      haptic.error();
    } finally {
      setBusy(false);
    }
  };
  const native = useMainButton({ text: t('dispute.open'), onClick: () => void open(), enabled: ready, busy });
  return (
    <form
      className="stack"
      onSubmit={(e) => {
        e.preventDefault();
        void open();
      }}
    >
      <div className="notice">
        <p>{t('dispute.how', { reward: formatAmount(task.reward, task.currency) })}</p>
        <p className="muted small">{t('dispute.locked')}</p>
      </div>
      <label>
        <span>{t('dispute.reasonLabel')}</span>
        <textarea rows={4} maxLength={MAX_TEXT} value={reason} onChange={(e) => setReason(e.target.value)} />
      </label>
      <ErrorNote error={error ? t('dispute.openFailed', { reason: reasonOf(error) }) : null} />
      {native ? null : (
        <button type="submit" disabled={!ready || busy}>
          {t('dispute.open')}
        </button>
      )}
    </form>
  );
}

function DisputeView({
  task,
  dispute,
  onTask,
}: {
  task: Task;
  dispute: Dispute;
  onTask: (task: Task) => void;
}) {
  const { t } = useTranslation();
  return (
    <>
      <p className="card-row">
        <span className="pill">{t(`dispute.status.${dispute.status}`)}</span>
        <span className="muted small">{t('dispute.openedBy', { by: dispute.openedBy })}</span>
      </p>
      <section className="section" aria-label={t('dispute.reason')}>
        <h2>{t('dispute.reason')}</h2>
        <p className="description">{dispute.reason}</p>
      </section>
      {dispute.resolution ? (
        <div
          className={decisionTone(dispute.resolution.workerAmount, task.reward)}
          role="status"
          aria-label={t('dispute.decision')}
        >
          <p>
            <strong>{decision(t, dispute.resolution.workerAmount, task.reward, task.currency)}</strong>
          </p>
          {dispute.resolution.note ? <p className="description">{dispute.resolution.note}</p> : null}
        </div>
      ) : null}
      <section className="section" aria-label={t('dispute.statements')}>
        <h2>{t('dispute.statements')}</h2>
        {dispute.statements.length === 0 ? (
          <p className="muted small">
            {t(dispute.status === 'OPEN' ? 'dispute.noStatements' : 'dispute.noStatementsDecided')}
          </p>
        ) : null}
        <ol className="statements">
          {dispute.statements.map((s) => (
            <li key={s.id ?? `${s.by}:${s.createdAt}`} className={s.by === 'WORKER' ? 'mine' : 'theirs'}>
              <span className="muted small">
                {t('dispute.statementBy', { by: s.by, when: formatDateTime(s.createdAt) })}
              </span>
              <p className="description">{s.text}</p>
              <Files files={s.attachments} />
            </li>
          ))}
        </ol>
      </section>
      {dispute.status === 'OPEN' ? <AddStatement task={task} onTask={onTask} /> : null}
    </>
  );
}

/**
 * The decision's colour: green only when the worker got the whole reward, a warning when they got
 * nothing, plain for a split (a loss never reads as a success).
 */
function decisionTone(workerAmount: string, reward: string): string {
  if (Number(workerAmount) === 0) return 'notice warn';
  return Number(workerAmount) >= Number(reward) ? 'notice ok' : 'notice';
}

/** The operator's decision in a sentence: all, none or part of the reward. */
function decision(
  t: (key: string, values?: Record<string, unknown>) => string,
  workerAmount: string,
  reward: string,
  currency: Currency,
) {
  if (Number(workerAmount) === 0) return t('dispute.decidedNone');
  if (Number(workerAmount) >= Number(reward))
    return t('dispute.decidedAll', { amount: formatAmount(workerAmount, currency) });
  return t('dispute.decidedPart', {
    amount: formatAmount(workerAmount, currency),
    reward: formatAmount(reward, currency),
  });
}

function AddStatement({ task, onTask }: { task: Task; onTask: (task: Task) => void }) {
  const { t } = useTranslation();
  const [text, setText] = useState('');
  const [photos, setPhotos] = useState<Uploaded[]>([]);
  const [uploading, setUploading] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const ready = text.trim().length > 0 && !uploading;
  useClosingConfirmation(text.trim().length > 0 || photos.length > 0);
  const add = async () => {
    if (!ready || busy) return;
    setBusy(true);
    setError(null);
    try {
      await api('POST', `/worker/tasks/${task.id}/dispute/statements`, {
        text: text.trim(),
        ...(photos.length > 0 ? { attachments: photos.map((p) => p.fileUrl) } : {}),
      });
      setText('');
      setPhotos([]);
      haptic.success();
      onTask(await loadTask(task.id));
    } catch (e) {
      setError(e);
      haptic.error();
    } finally {
      setBusy(false);
    }
  };
  const native = useMainButton({ text: t('dispute.add'), onClick: () => void add(), enabled: ready, busy });
  return (
    <form
      className="section stack"
      aria-label={t('dispute.addTitle')}
      onSubmit={(e) => {
        e.preventDefault();
        void add();
      }}
    >
      <h2>{t('dispute.addTitle')}</h2>
      <label>
        <span>{t('dispute.statementLabel')}</span>
        <textarea rows={3} maxLength={MAX_TEXT} value={text} onChange={(e) => setText(e.target.value)} />
      </label>
      <PhotoPicker photos={photos} onChange={setPhotos} max={MAX_FILES} onBusy={setUploading} />
      <ErrorNote error={error ? t('dispute.addFailed', { reason: reasonOf(error) }) : null} />
      {native ? null : (
        <button type="submit" disabled={!ready || busy}>
          {t('dispute.add')}
        </button>
      )}
    </form>
  );
}
