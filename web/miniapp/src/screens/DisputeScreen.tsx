import { useState } from 'react';
import { api, type Dispute, loadTask, shortDate, type Task, type Uploaded } from '../api';
import { DISPUTE_LABEL, PARTY_LABEL, resolutionLabel } from '../labels';
import { haptic, useMainButton } from '../telegram';
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
  const dispute = task.dispute ?? null;
  return (
    <article className="detail" aria-labelledby="dispute-title">
      <h1 id="dispute-title">Dispute</h1>
      <p className="muted small subtitle">About “{task.title}”</p>
      {dispute ? (
        <DisputeView task={task} dispute={dispute} onTask={onTask} />
      ) : (
        <OpenDispute task={task} onTask={onTask} />
      )}
    </article>
  );
}

function OpenDispute({ task, onTask }: { task: Task; onTask: (task: Task) => void }) {
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const ready = reason.trim().length > 0;
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
  const native = useMainButton({ text: 'Open dispute', onClick: () => void open(), enabled: ready, busy });
  return (
    <form
      className="stack"
      onSubmit={(e) => {
        e.preventDefault();
        void open();
      }}
    >
      <div className="notice">
        <p>
          An operator from Handoff reads the task, your submissions, the chat and both sides’ statements, then
          decides how much of the {task.reward} TON reward you get.
        </p>
        <p className="muted small">The reward stays locked until then; the agent cannot take it back.</p>
      </div>
      <label>
        <span>Why you disagree with the agent</span>
        <textarea rows={4} maxLength={MAX_TEXT} value={reason} onChange={(e) => setReason(e.target.value)} />
      </label>
      <ErrorNote error={error} />
      {native ? null : (
        <button type="submit" disabled={!ready || busy}>
          Open dispute
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
  return (
    <>
      <p className="card-row">
        <span className="pill">{DISPUTE_LABEL[dispute.status]}</span>
        <span className="muted small">Opened by {PARTY_LABEL[dispute.openedBy].toLowerCase()}</span>
      </p>
      <section className="section" aria-label="Reason">
        <h2>Reason</h2>
        <p className="description">{dispute.reason}</p>
      </section>
      {dispute.resolution ? (
        <div className="notice ok" role="status" aria-label="Decision">
          <p>
            <strong>{resolutionLabel(dispute.resolution.workerAmount, task.reward)}</strong>
          </p>
          {dispute.resolution.note ? <p className="description">{dispute.resolution.note}</p> : null}
        </div>
      ) : null}
      <section className="section" aria-label="Statements">
        <h2>Statements</h2>
        {dispute.statements.length === 0 ? (
          <p className="muted small">No statements yet. Add what the operator should know.</p>
        ) : null}
        <ol className="statements">
          {dispute.statements.map((s) => (
            <li key={s.id ?? `${s.by}:${s.createdAt}`} className={s.by === 'WORKER' ? 'mine' : 'theirs'}>
              <span className="muted small">
                {PARTY_LABEL[s.by]} · {shortDate(s.createdAt)}
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

function AddStatement({ task, onTask }: { task: Task; onTask: (task: Task) => void }) {
  const [text, setText] = useState('');
  const [photos, setPhotos] = useState<Uploaded[]>([]);
  const [uploading, setUploading] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const ready = text.trim().length > 0 && !uploading;
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
  const native = useMainButton({ text: 'Add statement', onClick: () => void add(), enabled: ready, busy });
  return (
    <form
      className="section stack"
      aria-label="Add a statement"
      onSubmit={(e) => {
        e.preventDefault();
        void add();
      }}
    >
      <h2>Add a statement</h2>
      <label>
        <span>Your statement</span>
        <textarea rows={3} maxLength={MAX_TEXT} value={text} onChange={(e) => setText(e.target.value)} />
      </label>
      <PhotoPicker photos={photos} onChange={setPhotos} max={MAX_FILES} onBusy={setUploading} />
      <ErrorNote error={error} />
      {native ? null : (
        <button type="submit" disabled={!ready || busy}>
          Add statement
        </button>
      )}
    </form>
  );
}
