import { createHmac, randomBytes } from 'node:crypto';

/**
 * The Telegram side of a Mini App, as the test sets it up: launch parameters in the URL hash
 * (init data signed with the bot token as Telegram's docs describe, theme, platform, version,
 * start parameter) and a `window.TelegramWebviewProxy` that records every event the app posts
 * and answers the requests Telegram answers (theme, viewport, safe areas).
 */

export interface TelegramUser {
  id: number;
  first_name: string;
  username?: string;
  /** Telegram's language for the user (default 'en'), which picks the app's language. */
  language_code?: string;
}

export const LIGHT_THEME = {
  bg_color: '#ffffff',
  text_color: '#000000',
  hint_color: '#707579',
  link_color: '#3390ec',
  button_color: '#3390ec',
  button_text_color: '#ffffff',
  secondary_bg_color: '#f4f4f5',
  section_bg_color: '#ffffff',
  accent_text_color: '#3390ec',
  destructive_text_color: '#e53935',
  section_separator_color: '#e7e7e7',
  header_bg_color: '#ffffff',
  bottom_bar_bg_color: '#ffffff',
  subtitle_text_color: '#707579',
  section_header_text_color: '#707579',
};

export const DARK_THEME = {
  bg_color: '#212121',
  text_color: '#ffffff',
  hint_color: '#aaaaaa',
  link_color: '#8774e1',
  button_color: '#8774e1',
  button_text_color: '#ffffff',
  secondary_bg_color: '#0f0f0f',
  section_bg_color: '#212121',
  accent_text_color: '#8774e1',
  destructive_text_color: '#ff595a',
  section_separator_color: '#3a3a3a',
  header_bg_color: '#212121',
  bottom_bar_bg_color: '#212121',
  subtitle_text_color: '#aaaaaa',
  section_header_text_color: '#aaaaaa',
};

/**
 * Init data as Telegram signs it: the fields sorted as "key=value" lines, HMAC-SHA256 with the
 * key HMAC-SHA256("WebAppData", bot token), hex, as `hash`. Telegram also adds `signature` (its
 * Ed25519 signature for third parties, which the service does not use; the SDK requires the
 * field), and it is part of the signed fields like any other.
 */
export function telegramInitData(user: TelegramUser, botToken: string, authDate: Date): string {
  const fields: Record<string, string> = {
    auth_date: String(Math.floor(authDate.getTime() / 1000)),
    query_id: `AAE${user.id}`,
    user: JSON.stringify({ language_code: 'en', ...user, allows_write_to_pm: true }),
    signature: randomBytes(64).toString('base64url'),
  };
  const check = Object.keys(fields)
    .sort()
    .map((k) => `${k}=${fields[k]}`)
    .join('\n');
  const secret = createHmac('sha256', 'WebAppData').update(botToken).digest();
  const hash = createHmac('sha256', secret).update(check).digest('hex');
  return new URLSearchParams({ ...fields, hash }).toString();
}

export function launchHash(options: {
  initData: string;
  theme: Record<string, string>;
  startParam?: string;
}): string {
  const params = new URLSearchParams({
    tgWebAppData: options.initData,
    tgWebAppVersion: '8.0',
    tgWebAppPlatform: 'ios',
    tgWebAppThemeParams: JSON.stringify(options.theme),
    ...(options.startParam ? { tgWebAppStartParam: options.startParam } : {}),
  });
  return `#${params.toString()}`;
}

/** An event the app posted to Telegram. */
export interface PostedEvent {
  type: string;
  data: Record<string, unknown> | null;
}

/** Where the phone is, as Telegram's location manager reports it (Bot API 8.0). */
export interface HostLocation {
  latitude: number;
  longitude: number;
  horizontal_accuracy?: number;
}

/**
 * Runs in the page before the app (page.addInitScript): the webview proxy and its answers.
 * `theme` is the theme the client reports when asked. With `location`, the client has a location
 * manager the worker has allowed (web_app_check_location, web_app_request_location answer it;
 * `window.__tgLocation` can move the phone); without, it says location is not available.
 */
export function telegramWebviewScript(theme: Record<string, string>, location?: HostLocation): string {
  return `(() => {
    const theme = ${JSON.stringify(theme)};
    window.__tgLocation = ${JSON.stringify(location ?? null)};
    window.__tgEvents = [];
    const reply = (type, data) => setTimeout(() => window.Telegram?.WebView?.receiveEvent(type, data), 0);
    const answers = {
      web_app_request_theme: () => reply('theme_changed', { theme_params: theme }),
      web_app_request_viewport: () => reply('viewport_changed', {
        height: window.innerHeight, width: window.innerWidth, is_expanded: true, is_state_stable: true,
      }),
      web_app_request_safe_area: () => reply('safe_area_changed', { top: 0, bottom: 0, left: 0, right: 0 }),
      web_app_request_content_safe_area: () =>
        reply('content_safe_area_changed', { top: 0, bottom: 0, left: 0, right: 0 }),
      web_app_check_location: () =>
        reply('location_checked', window.__tgLocation
          ? { available: true, access_requested: true, access_granted: true }
          : { available: false }),
      web_app_request_location: () =>
        reply('location_requested', window.__tgLocation
          ? { available: true, ...window.__tgLocation }
          : { available: false }),
    };
    window.TelegramWebviewProxy = {
      postEvent(type, json) {
        let data = null;
        try { data = json ? JSON.parse(json) : null; } catch { data = { raw: json }; }
        window.__tgEvents.push({ type, data });
        answers[type]?.();
      },
    };
  })();`;
}

/**
 * A TON Connect wallet injected into the page under `window[key]`, as a wallet's own browser
 * injects its bridge (isWalletBrowser: TON Connect UI then connects to it when the modal opens,
 * as on a phone): its connect request goes to `window.__walletConnect` (exposed by the test),
 * which signs the ton_proof with a real key pair.
 */
export function injectedWalletScript(key: string): string {
  return `(() => {
    const device = {
      platform: 'browser', appName: 'testwallet', appVersion: '1.0.0', maxProtocolVersion: 2,
      features: ['SendTransaction', { name: 'SendTransaction', maxMessages: 4 }],
    };
    window[${JSON.stringify(key)}] = {
      tonconnect: {
        deviceInfo: device,
        protocolVersion: 2,
        isWalletBrowser: true,
        walletInfo: {
          name: 'Test Wallet', app_name: 'testwallet', image: location.origin + '/app/icon.png',
          about_url: location.origin + '/app/', platforms: ['chrome', 'firefox', 'safari'],
        },
        async connect(protocolVersion, message) {
          const items = await window.__walletConnect(message);
          return { event: 'connect', id: Date.now(), payload: { items, device } };
        },
        async restoreConnection() {
          return { event: 'connect_error', id: Date.now(), payload: { code: 0, message: 'No session' } };
        },
        async send(request) {
          return { id: request.id, error: { code: 400, message: 'Not supported by the test wallet' } };
        },
        listen() { return () => {}; },
        disconnect() {},
      },
    };
  })();`;
}
