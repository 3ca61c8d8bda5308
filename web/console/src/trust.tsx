import type { Json } from './api';
import { labelOf, PARTY_LABEL, SUBMISSION_LABEL } from './labels';

/** "2026-11-26 10:15" (UTC), as the console's tables write times. */
export const when = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

/** Files of a submission or a statement: image previews that open the file, others as links. */
export function Files({ files }: { files: Json[] }) {
  if (!files || files.length === 0) return null;
  return (
    <ul className="files" aria-label="Files">
      {files.map((f: Json) => (
        <li key={f.fileUrl}>
          {String(f.contentType ?? '').startsWith('image/') ? (
            <a href={f.fileUrl} target="_blank" rel="noreferrer" title={f.name}>
              <img src={f.fileUrl} alt={f.name} loading="lazy" />
            </a>
          ) : (
            <a className="file-chip" href={f.fileUrl} download={f.name}>
              {f.name}
            </a>
          )}
          <span className="muted">{kib(f.size)}</span>
        </li>
      ))}
    </ul>
  );
}

function kib(bytes: number): string {
  if (typeof bytes !== 'number') return '';
  return bytes < 1024
    ? `${bytes} B`
    : bytes < 1048576
      ? `${Math.round(bytes / 1024)} KiB`
      : `${(bytes / 1048576).toFixed(1)} MiB`;
}

/** Where a submission was made, and whether that is inside the task's area (a signal, not proof). */
function LocationLine({ submission }: { submission: Json }) {
  const loc = submission.location;
  if (!loc) return <span className="muted">No location shared</span>;
  const within = loc.withinArea ?? submission.withinArea;
  const lat = Number(loc.latitude).toFixed(5);
  const lon = Number(loc.longitude).toFixed(5);
  return (
    <span>
      <a
        className="inline-link"
        href={`https://www.openstreetmap.org/?mlat=${lat}&mlon=${lon}#map=16/${lat}/${lon}`}
        target="_blank"
        rel="noreferrer"
      >
        {lat}, {lon}
      </a>
      {loc.accuracyMeters ? <span className="muted"> ±{Math.round(loc.accuracyMeters)} m</span> : null}
      {within === true ? <span className="tag ok"> inside the task’s area</span> : null}
      {within === false ? <span className="tag warn"> outside the task’s area</span> : null}
    </span>
  );
}

/** Submissions, newest first: number, state, note, files and location. */
export function SubmissionList({ submissions, decided }: { submissions: Json[]; decided?: boolean }) {
  if (submissions.length === 0) return <p className="muted">No work submitted yet.</p>;
  return (
    <ol className="submissions" aria-label="Submissions">
      {submissions.map((s: Json) => (
        <li key={s.id} className="submission">
          <div className="row">
            <strong>Submission {s.number}</strong>
            <span className="tag">
              {/* A disputed submission stays DISPUTED; once an operator decided, say so. */}
              {decided && s.status === 'DISPUTED'
                ? 'Decided by an operator'
                : labelOf(SUBMISSION_LABEL, s.status)}
            </span>
            <span className="muted">{when(s.createdAt)}</span>
          </div>
          <p className="description">{s.note}</p>
          <Files files={s.attachments ?? []} />
          <div className="muted-line">
            <LocationLine submission={s} />
          </div>
          {s.revisionReason ? (
            <p>
              <span className="muted">Changes requested: </span>
              {s.revisionReason}
            </p>
          ) : null}
        </li>
      ))}
    </ol>
  );
}

/** A dispute's statements in order, each with who wrote it and its files. */
export function StatementList({ statements }: { statements: Json[] }) {
  if (!statements || statements.length === 0) return <p className="muted">No statements yet.</p>;
  return (
    <ol className="statements" aria-label="Statements">
      {statements.map((s: Json, i: number) => (
        <li key={s.id ?? i}>
          <div className="muted">
            {labelOf(PARTY_LABEL, s.by)} · {when(s.createdAt)}
          </div>
          <p className="description">{s.text}</p>
          <Files files={s.attachments ?? []} />
        </li>
      ))}
    </ol>
  );
}

/**
 * A chat, read-only, oldest first: who wrote what and when, with attached files (images as
 * previews, other files as chips with their size). `workerName` and `agentLabel` name the sides.
 */
export function ChatLog({
  messages,
  workerName,
  agentLabel = 'Agent',
}: {
  messages: Json[];
  workerName?: string;
  agentLabel?: string;
}) {
  return (
    <ol className="chat" aria-label="Chat messages">
      {messages.map((m: Json) => (
        <li key={m.id} className={m.senderType === 'AGENT' ? 'mine' : ''}>
          <div className="bubble">
            <span className="muted">
              {m.senderType === 'AGENT' ? agentLabel : (workerName ?? 'Worker')} · {when(m.createdAt)}
            </span>
            {m.content ? <div className="description">{m.content}</div> : null}
            {m.fileUrl ? (
              <Files
                files={[
                  { fileUrl: m.fileUrl, name: m.fileName, contentType: m.mimeType ?? '', size: m.fileSize },
                ]}
              />
            ) : null}
          </div>
        </li>
      ))}
    </ol>
  );
}

/** An operator's decision: the split, when, and the note to both sides. */
export function DecisionText({ resolution, reward }: { resolution: Json; reward: string | undefined }) {
  return (
    <>
      <p>
        {resolution.workerAmount} TON of {reward ?? '?'} TON to the worker
        {resolution.platformFee !== undefined ? `, ${resolution.platformFee} TON platform fee` : ''}
        {resolution.agentAmount !== undefined ? `, ${resolution.agentAmount} TON back to the agent` : ''}
        {resolution.resolvedAt ? ` · ${when(resolution.resolvedAt)}` : ''}
      </p>
      {resolution.note ? <p className="description">{resolution.note}</p> : null}
    </>
  );
}
