/**
 * Small native touches for the chat, earnings and work screens that telegram.ts does not have:
 * Telegram's closing confirmation while a draft would be lost, the selection haptic on taps,
 * and one layer (the image viewer) that Telegram's back button closes before the screen does.
 */
import { closingBehavior, hapticFeedback } from '@tma.js/sdk-react';
import { useEffect, useRef } from 'react';

let drafts = 0;

/**
 * While `active` (an unsent message, unsubmitted work), closing the app asks first. Several
 * screens may hold drafts at once; the confirmation stays on until the last one is gone.
 */
export function useClosingConfirmation(active: boolean) {
  useEffect(() => {
    if (!active) return;
    if (!closingBehavior.isMounted()) closingBehavior.mount.ifAvailable();
    drafts += 1;
    if (drafts === 1) closingBehavior.enableConfirmation.ifAvailable();
    return () => {
      drafts -= 1;
      if (drafts === 0) closingBehavior.disableConfirmation.ifAvailable();
    };
  }, [active]);
}

/** The light tick Telegram plays when a choice is tapped (a tab, a chip, a star). */
export function selectionTap() {
  hapticFeedback.selectionChanged.ifAvailable();
}

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
