import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, type GeoPoint, type Submission, type SubmissionFile, type Task, type Uploaded } from '../api';
import { formatDistance, formatDuration } from '../format';
import { placeOf } from '../geo';
import { reasonOf } from '../reason';
import {
  haptic,
  requestLocation,
  useClosingConfirmation,
  useLocationAvailable,
  useMainButton,
} from '../telegram';
import { ErrorNote } from '../ui';
import { PhotoPicker } from './PhotoPicker';
import { RevisionNotice } from './Review';

const MAX_NOTE = 4000;
const MAX_FILES = 10;

/**
 * "Submit work": a note, photos from the camera or gallery, and the worker's location if they
 * choose to share it. Sending moves the task to review and starts the agent's review clock.
 */
export function SubmitWork({
  task,
  again,
  previous,
  onSubmitted,
}: {
  task: Task;
  again: boolean;
  /** The submission the agent sent back: its reason is shown and its files are attached again. */
  previous?: Submission | null;
  onSubmitted: (task: Task, submission: Submission) => void;
}) {
  const { t } = useTranslation();
  const [note, setNote] = useState('');
  const [photos, setPhotos] = useState<Uploaded[]>(() => (previous?.attachments ?? []).map(uploadedOf));
  const [uploading, setUploading] = useState(false);
  const [location, setLocation] = useState<GeoPoint | null>(null);
  const [locating, setLocating] = useState(false);
  const [locationNote, setLocationNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const canLocate = useLocationAvailable();
  const ready = note.trim().length > 0 && !uploading;
  const carried = (previous?.attachments.length ?? 0) > 0;
  useClosingConfirmation(note.trim().length > 0 || (photos.length > 0 && !carried));

  const locate = async () => {
    setLocating(true);
    setLocationNote(null);
    try {
      const here = await requestLocation();
      if (here) setLocation(here);
      else setLocationNote(t('submit.locationRefused'));
    } catch {
      setLocationNote(t('submit.locationFailed'));
    } finally {
      setLocating(false);
    }
  };

  const send = async () => {
    if (!ready || busy) return;
    setBusy(true);
    setError(null);
    try {
      const res = await api<{ submission: Submission; task: Task }>(
        'POST',
        `/worker/tasks/${task.id}/submissions`,
        {
          note: note.trim(),
          ...(photos.length > 0 ? { attachments: photos.map((p) => p.fileUrl) } : {}),
          ...(location ? { location } : {}),
        },
      );
      haptic.success();
      onSubmitted(res.task, res.submission);
    } catch (e) {
      setError(e);
      haptic.error();
    } finally {
      setBusy(false);
    }
  };

  const native = useMainButton({ text: t('submit.send'), onClick: () => void send(), enabled: ready, busy });
  const place = location && task.location ? placeOf(task.location, location) : null;

  return (
    <form
      className="detail stack work-form"
      aria-labelledby="submit-title"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <h1 id="submit-title">{again ? t('submit.titleAgain') : t('submit.title')}</h1>
      <p className="muted small">
        {t('submit.intro', {
          title: task.title,
          window: formatDuration((task.reviewHours ?? 72) * 3_600_000),
        })}
      </p>
      {previous ? <RevisionNotice submission={previous} /> : null}
      <label>
        <span>{t('submit.noteLabel')}</span>
        <textarea
          rows={5}
          maxLength={MAX_NOTE}
          value={note}
          onChange={(e) => setNote(e.target.value)}
          placeholder={t('submit.notePlaceholder')}
        />
      </label>
      <section className="section" aria-label={t('submit.photos')}>
        <h2>{t('submit.photos')}</h2>
        {carried ? <p className="muted small">{t('submit.earlier')}</p> : null}
        <PhotoPicker photos={photos} onChange={setPhotos} max={MAX_FILES} onBusy={setUploading} />
      </section>
      <section className="section" aria-label={t('submit.location')}>
        <h2>{t('submit.locationTitle')}</h2>
        {location ? (
          <>
            <p className="small" role="status">
              {location.accuracyMeters
                ? t('submit.locationAddedAccuracy', { accuracy: formatDistance(location.accuracyMeters) })
                : t('submit.locationAdded')}
              {place
                ? ` ${place.inside ? t('submit.inside') : t('submit.outside', { distance: formatDistance(place.meters) })}`
                : ''}
            </p>
            <button type="button" className="link" onClick={() => setLocation(null)}>
              {t('submit.removeLocation')}
            </button>
          </>
        ) : canLocate ? (
          <>
            <p className="muted small">{t('submit.locationWhy')}</p>
            <button type="button" className="secondary" onClick={() => void locate()} disabled={locating}>
              {locating ? t('submit.locating') : t('submit.shareLocation')}
            </button>
          </>
        ) : (
          <p className="muted small">{t('submit.noLocation')}</p>
        )}
        {locationNote ? <p className="muted small">{locationNote}</p> : null}
      </section>
      <ErrorNote error={error ? t('submit.failed', { reason: reasonOf(error) }) : null} />
      {native ? null : (
        <button type="submit" disabled={!ready || busy}>
          {busy ? t('submit.sending') : t('submit.send')}
        </button>
      )}
    </form>
  );
}

/** A file of an earlier submission as the photo picker holds an upload (the server takes it again). */
function uploadedOf(file: SubmissionFile): Uploaded {
  return { fileUrl: file.fileUrl, fileName: file.name, fileSize: file.size, mimeType: file.contentType };
}
