import { useEffect, useState } from 'react';
import { type Submission, shortDate } from '../api';
import { distanceLabel, durationLabel, SUBMISSION_LABEL } from '../labels';
import { Files } from './Files';

/** The agent's time left to review, ticking; then that payment is on its way. */
export function ReviewCountdown({ deadline }: { deadline: string }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);
  const left = new Date(deadline).getTime() - now;
  return (
    <div className="notice countdown" role="status" aria-label="Review time">
      {left > 0 ? (
        <>
          <p>
            <strong>{durationLabel(left)}</strong> left for the agent to review your work.
          </p>
          <p className="muted small">
            If the agent neither approves nor asks for changes by {shortDate(deadline)}, you are paid
            automatically.
          </p>
        </>
      ) : (
        <p>The review time is over: your payment is being released.</p>
      )}
    </div>
  );
}

/** The agent asked for changes: their reason, in their words. */
export function RevisionNotice({ submission }: { submission: Submission }) {
  return (
    <div className="notice warn" role="status" aria-label="Changes asked">
      <p>
        <strong>The agent asked for changes</strong> to submission {submission.number}:
      </p>
      <blockquote className="quote">{submission.revisionReason ?? 'No reason given.'}</blockquote>
      <p className="muted small">
        Change your work and submit it again. If you think the work was done as asked, open a dispute: an
        operator will look at both sides.
      </p>
    </div>
  );
}

/** One submission: when, its state, the note, photos and where it was made. */
export function SubmissionView({ submission }: { submission: Submission }) {
  const within = submission.location?.withinArea ?? submission.withinArea;
  return (
    <article className="card static submission" aria-label={`Submission ${submission.number}`}>
      <span className="card-row">
        <strong>Submission {submission.number}</strong>
        <span className="pill">{SUBMISSION_LABEL[submission.status]}</span>
      </span>
      <span className="muted small">{shortDate(submission.createdAt)}</span>
      <p className="description">{submission.note}</p>
      <Files files={submission.attachments} />
      {submission.location ? (
        <p className="muted small">
          Location shared
          {submission.location.accuracyMeters
            ? ` (accurate to about ${distanceLabel(submission.location.accuracyMeters)})`
            : ''}
          {within === true
            ? ': inside the task’s area.'
            : within === false
              ? ': outside the task’s area.'
              : '.'}
        </p>
      ) : null}
      {submission.status === 'REVISION_REQUESTED' && submission.revisionReason ? (
        <p className="small">
          <span className="muted">Changes asked: </span>
          {submission.revisionReason}
        </p>
      ) : null}
    </article>
  );
}
