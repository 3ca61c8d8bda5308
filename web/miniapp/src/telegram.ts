import {
  backButton,
  closingBehavior,
  hapticFeedback,
  init,
  locationManager,
  mainButton,
  miniApp,
  openLink,
  popup,
  retrieveLaunchParams,
  retrieveRawInitData,
  secondaryButton,
  themeParams,
  useSignal,
  viewport,
} from '@tma.js/sdk-react';
import { useEffect, useRef } from 'react';
import type { GeoPoint } from './api';

/** What the app needs from its launch: the init data to sign in with and the deep link. */
export interface Launch {
  initData: string;
  startParam: string | null;
  /** Telegram's language for this user (`ru`, `en`, `pt-br`), which picks the app's language. */
  languageCode: string | null;
}

/**
 * Starts the Telegram SDK: theme colours and safe areas become CSS variables (--tg-theme-*,
 * --tg-viewport-*), the app expands to full height and tells Telegram it is ready. Returns null
 * outside Telegram (no launch parameters), where the app can only say how to open it.
 */
export function startTelegram(): Launch | null {
  let initData: string | undefined;
  let startParam: string | null = null;
  let languageCode: string | null = null;
  try {
    init();
    initData = retrieveRawInitData();
    // A direct link (t.me/<bot>?startapp=...) brings tgWebAppStartParam; the bot's own
    // "Open in Handoff" buttons open the app's URL with ?startapp=... instead.
    const params = retrieveLaunchParams();
    startParam = params.tgWebAppStartParam ?? new URLSearchParams(location.search).get('startapp');
    languageCode = params.tgWebAppData?.user?.language_code ?? null;
  } catch (error) {
    console.error('Not launched from Telegram:', error);
    return null;
  }
  if (!initData) return null;
  backButton.mount.ifAvailable();
  mainButton.mount.ifAvailable();
  secondaryButton.mount.ifAvailable();
  closingBehavior.mount.ifAvailable();
  themeParams.mount.ifAvailable();
  themeParams.bindCssVars.ifAvailable();
  miniApp.mount.ifAvailable();
  miniApp.bindCssVars.ifAvailable();
  paintChrome();
  if (viewport.mount.isAvailable()) {
    viewport
      .mount()
      .then(() => {
        viewport.bindCssVars.ifAvailable();
        viewport.expand.ifAvailable();
      })
      .catch(() => {
        // An old client that does not answer: the page still works, at the height it has.
      });
  }
  // Asks the client whether it can share a location (Bot API 8.0); the answer decides whether
  // the screens offer "Share my location". Nothing is requested from the worker here.
  if (locationManager.mount.isAvailable()) {
    locationManager.mount().catch(() => {
      // An old client: the screens simply offer no location.
    });
  }
  miniApp.ready.ifAvailable();
  return { initData, startParam, languageCode };
}

/**
 * Telegram's header, the page behind it and the bottom bar take the app's background (the
 * theme's secondary background, on which the list sections sit), so there is no seam between
 * Telegram's chrome and the app. Theme keys, so Telegram keeps them right when the theme changes.
 */
function paintChrome() {
  miniApp.setHeaderColor.ifAvailable('secondary_bg_color');
  miniApp.setBgColor.ifAvailable('secondary_bg_color');
  miniApp.setBottomBarColor.ifAvailable('secondary_bg_color');
}

/** Closes the Mini App (an expired session: the worker opens it again from the bot). */
export function closeApp(): boolean {
  if (!miniApp.close.isAvailable()) return false;
  miniApp.close();
  return true;
}

export interface Confirmation {
  title?: string;
  message: string;
  confirm: string;
  cancel: string;
  destructive?: boolean;
}

/**
 * Asks the worker to confirm a step they cannot take back: Telegram's own popup when the client
 * has one, else the page's confirm dialog.
 */
export async function confirmAction(ask: Confirmation): Promise<boolean> {
  if (popup.show.isAvailable()) {
    const id = await popup.show({
      ...(ask.title ? { title: ask.title } : {}),
      message: ask.message,
      buttons: [
        { id: 'confirm', type: ask.destructive ? 'destructive' : 'default', text: ask.confirm },
        { id: 'cancel', type: 'default', text: ask.cancel },
      ],
    });
    return id === 'confirm';
  }
  return window.confirm(ask.message);
}

let drafts = 0;

/**
 * While `draft` (an unsent message, unsubmitted work, unsaved profile changes), closing the app
 * asks first (Telegram's closing confirmation). Several screens may hold drafts at once (a task
 * page under the chat); the confirmation stays on until the last one is gone.
 */
export function useClosingConfirmation(draft: boolean) {
  useEffect(() => {
    if (!draft) return;
    if (!closingBehavior.isMounted()) closingBehavior.mount.ifAvailable();
    drafts += 1;
    if (drafts === 1) closingBehavior.enableConfirmation.ifAvailable();
    return () => {
      drafts -= 1;
      if (drafts === 0) closingBehavior.disableConfirmation.ifAvailable();
    };
  }, [draft]);
}

/**
 * The screen's other choice on Telegram's secondary button, beside the main one (Decline
 * beside Accept). Returns false when the client has none, and the screen shows its own.
 */
export function useSecondaryButton(action: MainAction | null): boolean {
  const available = secondaryButton.setParams.isAvailable();
  const handler = useRef(action?.onClick);
  handler.current = action?.onClick;
  const text = action?.text;
  const enabled = action?.enabled ?? true;
  const busy = action?.busy ?? false;
  useEffect(() => {
    if (!available || text === undefined) return;
    secondaryButton.setParams({
      text,
      isVisible: true,
      isEnabled: enabled && !busy,
      isLoaderVisible: false,
      position: 'left',
    });
    const off = secondaryButton.onClick(() => handler.current?.());
    return () => {
      off();
      secondaryButton.setParams.ifAvailable({ isVisible: false });
    };
  }, [available, text, enabled, busy]);
  return available;
}

export function useDarkTheme(): boolean {
  return useSignal(themeParams.isDark);
}

/** Shows Telegram's back button while mounted; pressing it calls `onBack`. */
export function useBackButton(onBack: (() => void) | null) {
  const handler = useRef(onBack);
  handler.current = onBack;
  const visible = onBack !== null;
  useEffect(() => {
    if (!visible || !backButton.show.isAvailable()) return;
    backButton.show();
    const off = backButton.onClick(() => handler.current?.());
    return () => {
      off();
      backButton.hide.ifAvailable();
    };
  }, [visible]);
}

export interface MainAction {
  text: string;
  onClick: () => void;
  enabled?: boolean;
  busy?: boolean;
}

/**
 * The screen's main action on Telegram's main button (at the bottom, in the theme's button
 * colour). Returns false when the client has no main button, and the screen then shows its own.
 */
export function useMainButton(action: MainAction | null): boolean {
  const available = mainButton.setParams.isAvailable();
  const handler = useRef(action?.onClick);
  handler.current = action?.onClick;
  const text = action?.text;
  const enabled = action?.enabled ?? true;
  const busy = action?.busy ?? false;
  useEffect(() => {
    if (!available || text === undefined) return;
    mainButton.setParams({ text, isVisible: true, isEnabled: enabled && !busy, isLoaderVisible: busy });
    const off = mainButton.onClick(() => handler.current?.());
    return () => {
      off();
      mainButton.setParams.ifAvailable({ isVisible: false, isLoaderVisible: false });
    };
  }, [available, text, enabled, busy]);
  return available;
}

export const haptic = {
  success: () => hapticFeedback.notificationOccurred.ifAvailable('success'),
  error: () => hapticFeedback.notificationOccurred.ifAvailable('error'),
  tap: () => hapticFeedback.impactOccurred.ifAvailable('light'),
  /** A choice changed (a tab, a star, a switch): Telegram's lightest tick. */
  selection: () => hapticFeedback.selectionChanged.ifAvailable(),
};

/** Whether Telegram can share the worker's location here (LocationManager, Bot API 8.0+). */
export function useLocationAvailable(): boolean {
  const mounted = useSignal(locationManager.isMounted);
  const available = useSignal(locationManager.isAvailable);
  return mounted && available;
}

/**
 * Asks Telegram for the worker's location (Telegram asks the worker the first time). Null when
 * the worker refuses or the client cannot; the caller says so in words.
 */
export async function requestLocation(): Promise<GeoPoint | null> {
  if (!locationManager.requestLocation.isAvailable()) return null;
  const found = await locationManager.requestLocation();
  if (!found) return null;
  return {
    latitude: found.latitude,
    longitude: found.longitude,
    ...(typeof found.horizontal_accuracy === 'number' ? { accuracyMeters: found.horizontal_accuracy } : {}),
  };
}

/**
 * Opens an outside address (a map) in the phone's browser through Telegram, which a plain link
 * inside the webview may not do; returns false outside Telegram, where the link works as is.
 */
export function openOutside(url: string): boolean {
  if (!openLink.isAvailable()) return false;
  openLink(url);
  return true;
}
