import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { SubmissionFile } from '../api';
import { haptic } from '../telegram';
import { FileChip } from './FileChip';
import { ImageViewer, type ViewedImage } from './ImageViewer';

/** Files of a submission or a statement: photos as thumbnails that open full screen, others as chips. */
export function Files({ files }: { files: SubmissionFile[] }) {
  const { t } = useTranslation();
  const [viewed, setViewed] = useState<ViewedImage | null>(null);
  if (files.length === 0) return null;
  return (
    <>
      <ul className="files" aria-label={t('files.list')}>
        {files.map((f) => (
          <li key={f.fileUrl}>
            {f.contentType.startsWith('image/') ? (
              <button
                type="button"
                className="file-thumb"
                aria-label={t('chat.openImage', { name: f.name })}
                onClick={() => {
                  haptic.selection();
                  setViewed({ url: f.fileUrl, name: f.name });
                }}
              >
                <img src={f.fileUrl} alt={f.name} loading="lazy" />
              </button>
            ) : (
              <FileChip url={f.fileUrl} name={f.name} size={f.size} />
            )}
          </li>
        ))}
      </ul>
      {viewed ? <ImageViewer image={viewed} onClose={() => setViewed(null)} /> : null}
    </>
  );
}
