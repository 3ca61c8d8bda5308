import {
  backButton,
  hapticFeedback,
  init,
  locationManager,
  mainButton,
  miniApp,
  openLink,
  retrieveLaunchParams,
  retrieveRawInitData,
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
  themeParams.mount.ifAvailable();
  themeParams.bindCssVars.ifAvailable();
  miniApp.mount.ifAvailable();
  miniApp.bindCssVars.ifAvailable();
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
