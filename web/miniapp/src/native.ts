/**
 * One layer over the screen (the image viewer) that Telegram's back button closes before the
 * screen does.
 */
import { useEffect, useRef } from 'react';

let overlayClose: (() => void) | null = null;

/**
 * A layer over the screen (the image viewer) that Telegram's back button closes first: while
 * mounted, `closeOverlay()` (called by the app's back handler) closes it and says it did.
 */
export function useOverlay(onClose: (() => void) | null) {
  const handler = useRef(onClose);
  handler.current = onClose;
  const open = onClose !== null;
  useEffect(() => {
    if (!open) return;
    const close = () => handler.current?.();
    overlayClose = close;
    return () => {
      if (overlayClose === close) overlayClose = null;
    };
  }, [open]);
}

export function closeOverlay(): boolean {
  if (!overlayClose) return false;
  overlayClose();
  return true;
}
