import { kib, type SubmissionFile } from '../api';

/** Files of a submission or a statement: photos shown, anything else as a download. */
export function Files({ files }: { files: SubmissionFile[] }) {
  if (files.length === 0) return null;
  return (
    <ul className="files" aria-label="Files">
      {files.map((f) => (
        <li key={f.fileUrl}>
          {f.contentType.startsWith('image/') ? (
            <a href={f.fileUrl} target="_blank" rel="noreferrer">
              <img src={f.fileUrl} alt={f.name} loading="lazy" />
            </a>
          ) : (
            <a href={f.fileUrl} download={f.name} className="file-link">
              {f.name} <span className="muted small">({kib(f.size)})</span>
            </a>
          )}
        </li>
      ))}
    </ul>
  );
}
