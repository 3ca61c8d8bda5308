import { useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { REPORT_REASONS, type ReportReason as Reason } from '../../../../src/shared/reportReasons.js';
import { api, type Task } from '../api';
import { confirmAction, haptic } from '../telegram';
import { ErrorNote, useLoad } from '../ui';

/**
 * A worker protects themselves from a task (issue 39): "Report" opens a sheet with the reasons,
 * and "Block this agent" asks first, then the task leaves the lists. Both are quiet links at the
 * foot of the task page: most tasks are fine, and the page's own actions come first.
 */
export function TaskSafety({ task, onBlocked }: { task: Task; onBlocked: () => void }) {
  const { t } = useTranslation();
  const [reporting, setReporting] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);

  const block = async () => {
    haptic.selection();
    const sure = await confirmAction({
      title: t('safety.blockTitle'),
      message: t('safety.blockQuestion', { agent: task.agent.name ?? t('task.anAgent') }),
      confirm: t('safety.blockConfirm'),
      cancel: t('common.cancel'),
      destructive: true,
    }).catch(() => false);
    if (!sure) return;
    setBusy(true);
    setError(null);
    try {
      await api('POST', `/worker/agents/${encodeURIComponent(task.agent.id)}/block`);
      haptic.success();
      onBlocked();
    } catch (e) {
      setError(e);
      haptic.error();
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="task-safety">
      <ErrorNote error={error} />
      <div className="task-safety-row">
        <button ref={opener} type="button" className="link" onClick={() => setReporting(true)}>
          {t('safety.report')}
        </button>
        <button type="button" className="link" onClick={() => void block()} disabled={busy}>
          {t('safety.block')}
        </button>
      </div>
      {reporting ? (
        <ReportSheet
          taskId={task.id}
          onClose={() => {
            setReporting(false);
            opener.current?.focus();
          }}
        />
      ) : null}
    </div>
  );
}

/** The report sheet: the reasons as a radio group, an optional note, Send and Cancel. */
function ReportSheet({ taskId, onClose }: { taskId: string; onClose: () => void }) {
  const { t } = useTranslation();
  const titleId = useId();
  const [reason, setReason] = useState<Reason | null>(null);
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<'sent' | 'already' | null>(null);
  const first = useRef<HTMLInputElement>(null);

  useEffect(() => {
    first.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onClose();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [onClose]);

  const send = async () => {
    if (!reason) return;
    setBusy(true);
    setError(null);
    try {
      const res = await api<{ counted: boolean }>(
        'POST',
        `/worker/tasks/${encodeURIComponent(taskId)}/report`,
        {
          reason,
          ...(note.trim() ? { note: note.trim() } : {}),
        },
      );
      haptic.success();
      setDone(res.counted ? 'sent' : 'already');
    } catch (e) {
      setError(e);
      haptic.error();
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="sheet-backdrop">
      <div className="sheet" role="dialog" aria-modal="true" aria-labelledby={titleId}>
        <h2 id={titleId} className="sheet-title">
          {t('safety.reportTitle')}
        </h2>
        {done ? (
          <>
            <p className="notice ok" role="status">
              {done === 'sent' ? t('safety.reportSent') : t('safety.reportAlready')}
            </p>
            <button type="button" className="wide" onClick={onClose}>
              {t('safety.close')}
            </button>
          </>
        ) : (
          <form
            className="stack"
            onSubmit={(e) => {
              e.preventDefault();
              void send();
            }}
          >
            <fieldset className="report-reasons" disabled={busy}>
              <legend>{t('safety.reasonLegend')}</legend>
              <div role="radiogroup" aria-label={t('safety.reasonLegend')} className="language-list">
                {REPORT_REASONS.map((code, i) => (
                  <label key={code} className="language-option">
                    <input
                      ref={i === 0 ? first : undefined}
                      type="radio"
                      name="report-reason"
                      value={code}
                      checked={reason === code}
                      onChange={() => setReason(code)}
                    />
                    <span>{t(`safety.reasons.${code}`)}</span>
                  </label>
                ))}
              </div>
            </fieldset>
            <label>
              <span>{t('safety.noteLabel')}</span>
              <textarea
                rows={3}
                maxLength={1000}
                value={note}
                disabled={busy}
                onChange={(e) => setNote(e.target.value)}
              />
            </label>
            <ErrorNote error={error} />
            <div className="row">
              <button type="button" className="secondary" onClick={onClose}>
                {t('common.cancel')}
              </button>
              <button type="submit" disabled={busy || !reason}>
                {t('safety.send')}
              </button>
            </div>
          </form>
        )}
      </div>
    </div>
  );
}

interface BlockedAgent {
  agentId: string;
  name: string | null;
  blockedAt: string;
}

/**
 * The profile's list of agents this worker blocked, each with Unblock. Shown only when there is
 * someone on it: most workers never block anyone, and the profile stays short for them.
 */
export function BlockedAgents() {
  const { t } = useTranslation();
  const list = useLoad(
    async () => (await api<{ agents: BlockedAgent[] }>('GET', '/worker/agents/blocked')).agents,
  );
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const agents = list.data ?? [];
  if (agents.length === 0 && !error) return null;
  const unblock = async (agent: BlockedAgent) => {
    setBusy(agent.agentId);
    setError(null);
    try {
      await api('DELETE', `/worker/agents/${encodeURIComponent(agent.agentId)}/block`);
      haptic.success();
      list.set(agents.filter((a) => a.agentId !== agent.agentId));
    } catch (e) {
      setError(e);
      haptic.error();
    } finally {
      setBusy(null);
    }
  };
  return (
    <section className="section blocked-agents" aria-labelledby="blocked-title">
      <h2 id="blocked-title">{t('safety.blockedTitle')}</h2>
      <p className="muted small">{t('safety.blockedHint')}</p>
      <ul className="blocked-list">
        {agents.map((agent) => {
          const name = agent.name ?? t('task.anAgent');
          return (
            <li key={agent.agentId} className="blocked-row">
              <span className="blocked-name">{name}</span>
              <button
                type="button"
                className="secondary"
                disabled={busy !== null}
                aria-label={t('safety.unblockNamed', { agent: name })}
                onClick={() => void unblock(agent)}
              >
                {t('safety.unblock')}
              </button>
            </li>
          );
        })}
      </ul>
      <ErrorNote error={error} />
    </section>
  );
}
