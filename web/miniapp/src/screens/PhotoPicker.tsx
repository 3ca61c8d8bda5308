import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type Uploaded, uploadFile } from '../api';
import { reasonOf } from '../reason';
import { ErrorNote } from '../ui';

/**
 * Photos chosen from the camera or the gallery (a file input with accept="image/*": the phone
 * offers both), each uploaded through the worker upload API as soon as it is picked, shown as a
 * thumbnail that can be removed. `max` bounds the count (a submission takes up to 10 files).
 */
export function PhotoPicker({
  photos,
  onChange,
  max,
  onBusy,
}: {
  photos: Uploaded[];
  onChange: (photos: Uploaded[]) => void;
  max: number;
  onBusy?: (busy: boolean) => void;
}) {
  const { t } = useTranslation();
  const input = useRef<HTMLInputElement>(null);
  const [uploading, setUploading] = useState(0);
  const [error, setError] = useState<unknown>(null);
  const room = max - photos.length;

  const pick = async (files: FileList | null) => {
    const chosen = Array.from(files ?? []).slice(0, Math.max(0, room));
    if (input.current) input.current.value = '';
    if (chosen.length === 0) return;
    setError(null);
    setUploading(chosen.length);
    onBusy?.(true);
    let added = photos;
    try {
      // One after another: a phone on a weak connection does better with one upload at a time.
      for (const file of chosen) {
        const stored = await uploadFile(file);
        added = [...added, stored];
        onChange(added);
        setUploading((n) => n - 1);
      }
    } catch (e) {
      setError(e);
    } finally {
      setUploading(0);
      onBusy?.(false);
    }
  };

  return (
    <div className="photos">
      {photos.length > 0 ? (
        <ul className="thumbs" aria-label={t('photos.chosen')}>
          {photos.map((p) => (
            <li key={p.fileUrl}>
              {p.mimeType.startsWith('image/') ? <img src={p.fileUrl} alt={p.fileName} /> : null}
              <button
                type="button"
                className="remove"
                aria-label={t('photos.remove', { name: p.fileName })}
                onClick={() => onChange(photos.filter((x) => x.fileUrl !== p.fileUrl))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {room > 0 ? (
        <label className="button secondary">
          {uploading > 0
            ? t('photos.uploading', { count: uploading })
            : photos.length > 0
              ? t('photos.addMore')
              : t('photos.add')}
          <input
            ref={input}
            type="file"
            accept="image/*"
            multiple
            className="sr-only"
            aria-label={t('photos.inputLabel')}
            disabled={uploading > 0}
            onChange={(e) => void pick(e.target.files)}
          />
        </label>
      ) : (
        <p className="muted small">{t('photos.full', { max })}</p>
      )}
      <ErrorNote error={error ? t('photos.failed', { reason: reasonOf(error) }) : null} />
    </div>
  );
}
