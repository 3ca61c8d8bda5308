import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useOverlay } from '../native';

export interface ViewedImage {
  url: string;
  name: string;
}

/**
 * An image over the whole screen, on black, with a close button. Escape, Telegram's back button
 * and the close button close it; focus moves to the close button and back to the opener after.
 */
export function ImageViewer({ image, onClose }: { image: ViewedImage; onClose: () => void }) {
  const { t } = useTranslation();
  const close = useRef<HTMLButtonElement>(null);
  useOverlay(onClose);
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    close.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onClose();
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      opener?.focus?.();
    };
  }, [onClose]);
  return (
    <div
      className="image-viewer"
      role="dialog"
      aria-modal="true"
      aria-label={t('chat.imageViewer', { name: image.name })}
    >
      <img src={image.url} alt={image.name} />
      <div className="image-viewer-bar">
        <span className="image-viewer-name">{image.name}</span>
        <button ref={close} type="button" className="image-viewer-close" onClick={onClose}>
          {t('chat.closeImage')}
        </button>
      </div>
    </div>
  );
}
