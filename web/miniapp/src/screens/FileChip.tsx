import { useTranslation } from 'react-i18next';
import { formatBytes } from '../format';

/**
 * A file as a chip: an icon, its name (cut with an ellipsis when long) and its size; a tap
 * downloads it. Its name is its visible text: "report.pdf, 12 kB".
 */
export function FileChip({ url, name, size }: { url: string; name: string; size: number | null }) {
  const { t } = useTranslation();
  const sizeText = size === null ? '' : formatBytes(size);
  return (
    <a className="file-chip" href={url} download={name}>
      {/* The extension is drawn from data-ext (CSS), so the chip's visible text is its name and size. */}
      <span className="file-chip-icon" aria-hidden="true" data-ext={extensionOf(name)} />
      <span className="file-chip-text">
        <span className="file-chip-name">{name}</span>
        {sizeText ? (
          <>
            {/* Read as "report.pdf, 12 kB": the comma is for screen readers only. */}
            <span className="sr-only">{t('files.sizeSeparator')}</span>
            <span className="file-chip-size">{sizeText}</span>
          </>
        ) : null}
      </span>
    </a>
  );
}

/** "PDF" for report.pdf: what the icon shows (up to four letters). */
function extensionOf(name: string): string {
  const match = /\.([A-Za-z0-9]{1,4})$/.exec(name);
  return match ? (match[1] as string).toUpperCase() : '';
}
