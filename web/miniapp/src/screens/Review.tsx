import { type ReactNode, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Submission } from '../api';
import { formatDateTime, formatDistance, formatDuration } from '../format';
import { Files } from './Files';

const MARK = '\u0000';

/** A translated sentence with one part in bold: the part goes where the message put MARK. */
function emphasized(sentence: string, part: string): ReactNode {
  const [before, after] = sentence.split(MARK);
  return (
    <>
      {before}
      <strong>{part}</strong>
      {after}
    </>
  );
}

/** The agent's time left to review, ticking; then that payment is on its way. */
export function ReviewCountdown({ deadline }: { deadline: string }) {
  const { t } = useTranslation();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);
  const left = new Date(deadline).getTime() - now;
  return (
    <div className="notice countdown" role="status" aria-label={t('task.reviewTime')}>
      {left > 0 ? (
        <>
          <p>{emphasized(t('task.reviewLeft', { left: MARK }), formatDuration(left))}</p>
          <p className="muted small">{t('task.autoPay', { when: formatDateTime(deadline) })}</p>
        </>
      ) : (
        <p>{t('task.reviewOver')}</p>
      )}
    </div>
  );
}

/** The agent asked for changes: their reason, in their words. */
export function RevisionNotice({ submission }: { submission: Submission }) {
  const { t } = useTranslation();
  return (
    <div className="notice warn" role="status" aria-label={t('task.changesAsked')}>
      <p>
        {emphasized(
          t('task.changesAskedFor', { number: submission.number, what: MARK }),
          t('task.changesAskedWhat'),
        )}
      </p>
      <blockquote className="quote">{submission.revisionReason ?? t('task.noReason')}</blockquote>
      <p className="muted small">{t('task.changesHelp')}</p>
    </div>
  );
}

const SUBMISSION_KEY: Record<Submission['status'], string> = {
  PENDING: 'task.submission.pending',
  ACCEPTED: 'task.submission.accepted',
  REVISION_REQUESTED: 'task.submission.revision',
  DISPUTED: 'task.submission.disputed',
};

/** One submission: when, its state, the note, photos and where it was made. */
export function SubmissionView({ submission }: { submission: Submission }) {
  const { t } = useTranslation();
  const within = submission.location?.withinArea ?? submission.withinArea;
  const accuracy = submission.location?.accuracyMeters;
  return (
    <article className="submission" aria-label={t('task.submissionNumber', { number: submission.number })}>
      <span className="task-head">
        <strong>{t('task.submissionNumber', { number: submission.number })}</strong>
        <span className="pill">{t(SUBMISSION_KEY[submission.status])}</span>
      </span>
      <span className="muted small">{formatDateTime(submission.createdAt)}</span>
      <p className="description">{submission.note}</p>
      <Files files={submission.attachments} />
      {submission.location ? (
        <p className="muted small">
          {t(
            within === true
              ? 'task.locationInside'
              : within === false
                ? 'task.locationOutside'
                : 'task.locationShared',
            { accuracy: accuracy ? formatDistance(accuracy) : '', hasAccuracy: accuracy ? 'yes' : 'no' },
          )}
        </p>
      ) : null}
      {submission.status === 'REVISION_REQUESTED' && submission.revisionReason ? (
        <p className="small">
          <span className="muted">{t('task.changesAskedShort')} </span>
          {submission.revisionReason}
        </p>
      ) : null}
    </article>
  );
}
