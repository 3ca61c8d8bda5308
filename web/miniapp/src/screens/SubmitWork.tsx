import { useState } from 'react';
import { api, type GeoPoint, type Submission, type Task, type Uploaded } from '../api';
import { placeOf } from '../geo';
import { distanceLabel } from '../labels';
import { haptic, requestLocation, useLocationAvailable, useMainButton } from '../telegram';
import { ErrorNote } from '../ui';
import { PhotoPicker } from './PhotoPicker';

const MAX_NOTE = 4000;
const MAX_FILES = 10;

/**
 * "Submit work": a note, photos from the camera or gallery, and the worker's location if they
 * choose to share it. Sending moves the task to review and starts the agent's review clock.
 */
export function SubmitWork({
  task,
  again,
  onSubmitted,
}: {
  task: Task;
  again: boolean;
  onSubmitted: (task: Task, submission: Submission) => void;
}) {
  const [note, setNote] = useState('');
  const [photos, setPhotos] = useState<Uploaded[]>([]);
  const [uploading, setUploading] = useState(false);
  const [location, setLocation] = useState<GeoPoint | null>(null);
  const [locating, setLocating] = useState(false);
  const [locationNote, setLocationNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const canLocate = useLocationAvailable();
  const ready = note.trim().length > 0 && !uploading;

  const locate = async () => {
    setLocating(true);
    setLocationNote(null);
    try {
      const here = await requestLocation();
      if (here) setLocation(here);
      else setLocationNote('Telegram did not share your location. You can send the work without it.');
    } catch {
      setLocationNote('Your location could not be read. You can send the work without it.');
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

  const native = useMainButton({ text: 'Send for review', onClick: () => void send(), enabled: ready, busy });
  const place = location && task.location ? placeOf(task.location, location) : null;

  return (
    <form
      className="detail stack"
      aria-labelledby="submit-title"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <h1 id="submit-title">{again ? 'Submit work again' : 'Submit work'}</h1>
      <p className="muted small">
        For “{task.title}”. The agent then has {reviewWindow(task)} to review it; if they do nothing in that
        time, you are paid automatically.
      </p>
      <label>
        <span>What you did</span>
        <textarea
          rows={5}
          maxLength={MAX_NOTE}
          value={note}
          onChange={(e) => setNote(e.target.value)}
          placeholder="Describe the result, and anything the agent should know"
        />
      </label>
      <section className="section" aria-label="Photos">
        <h2>Photos</h2>
        <PhotoPicker photos={photos} onChange={setPhotos} max={MAX_FILES} onBusy={setUploading} />
      </section>
      <section className="section" aria-label="Location">
        <h2>Location (optional)</h2>
        {location ? (
          <>
            <p className="small" role="status">
              Your location is added
              {location.accuracyMeters
                ? ` (accurate to about ${distanceLabel(location.accuracyMeters)})`
                : ''}
              .
              {place
                ? place.inside
                  ? ' You are inside the task’s area.'
                  : ` You are ${distanceLabel(place.meters)} from the task’s spot, outside its area.`
                : ''}
            </p>
            <button type="button" className="link" onClick={() => setLocation(null)}>
              Remove location
            </button>
          </>
        ) : canLocate ? (
          <>
            <p className="muted small">
              It shows the agent where the work was done. Only with your permission.
            </p>
            <button type="button" className="secondary" onClick={() => void locate()} disabled={locating}>
              {locating ? 'Asking Telegram…' : 'Share my location'}
            </button>
          </>
        ) : (
          <p className="muted small">This Telegram app cannot share a location. Send the work without it.</p>
        )}
        {locationNote ? <p className="muted small">{locationNote}</p> : null}
      </section>
      <ErrorNote error={error} />
      {native ? null : (
        <button type="submit" disabled={!ready || busy}>
          {busy ? 'Sending…' : 'Send for review'}
        </button>
      )}
    </form>
  );
}

function reviewWindow(task: Task): string {
  const hours = task.reviewHours ?? 72;
  return hours % 24 === 0 ? `${hours / 24} ${hours === 24 ? 'day' : 'days'}` : `${hours} hours`;
}
