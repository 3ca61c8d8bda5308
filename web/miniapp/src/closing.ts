import { closingBehavior } from '@tma.js/sdk-react';
import { useEffect } from 'react';

/**
 * While `active` (unsaved changes on screen), Telegram asks before the Mini App is closed, so a
 * swipe down does not throw the worker's edits away.
 */
export function useClosingConfirmation(active: boolean): void {
  useEffect(() => {
    if (!active) return;
    closingBehavior.mount.ifAvailable();
    if (!closingBehavior.enableConfirmation.isAvailable()) return;
    closingBehavior.enableConfirmation();
    return () => {
      closingBehavior.disableConfirmation.ifAvailable();
    };
  }, [active]);
}
