/**
 * The Content-Security-Policy and its companions for the web apps (/console and /app), sent with
 * every file they serve. Scripts and everything else come only from the service itself; the one
 * exception is connect-src, which also names the HTTP bridges of the wallets in the served list:
 * once the person has chosen a wallet, TON Connect talks to that wallet through its bridge (an
 * EventSource plus POSTs, https://<bridge>/bridge/events and /bridge/message). Which bridges these
 * are comes from the list the service serves, so the policy follows each refresh of it.
 *
 * - style-src allows 'unsafe-inline': TON Connect UI styles its modal with <style> elements and
 *   style attributes it creates at run time (a CSS-in-JS library); scripts stay 'self' only.
 * - frame-ancestors: the console is never framed ('none'); the Mini App is framed by Telegram's
 *   web clients, and opened in a webview (no frame) by its apps.
 */

/** Telegram's web clients, which show a Mini App in an iframe. */
export const TELEGRAM_WEB_CLIENTS = [
  'https://web.telegram.org',
  'https://webk.telegram.org',
  'https://webz.telegram.org',
] as const;

/**
 * The hash of an empty inline event handler: TON Connect UI sets `ontouchstart=""` on <body> so
 * that :active styles work in Mobile Safari. An empty handler runs nothing; every other inline
 * handler stays refused.
 */
const EMPTY_HANDLER_HASH = 'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=';

export type WebAppName = 'console' | 'miniapp';

export function contentSecurityPolicy(app: WebAppName, bridgeOrigins: readonly string[]): string {
  const frameAncestors = app === 'miniapp' ? TELEGRAM_WEB_CLIENTS.join(' ') : "'none'";
  return [
    "default-src 'self'",
    "script-src 'self'",
    `script-src-attr 'unsafe-hashes' '${EMPTY_HANDLER_HASH}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src 'self' ${bridgeOrigins.join(' ')}`.trimEnd(),
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    `frame-ancestors ${frameAncestors}`,
  ].join('; ');
}

/** Every header the web apps' files carry besides their own content type and caching. */
export function webSecurityHeaders(
  app: WebAppName,
  bridgeOrigins: readonly string[],
): Record<string, string> {
  return {
    'content-security-policy': contentSecurityPolicy(app, bridgeOrigins),
    // Nothing of the page's address (a console hash route, a Mini App launch) goes to anyone.
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    // For browsers without frame-ancestors; the Mini App leaves it to frame-ancestors.
    ...(app === 'console' ? { 'x-frame-options': 'DENY' } : {}),
  };
}
