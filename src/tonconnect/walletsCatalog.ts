import snapshot from './walletsSnapshot.json' with { type: 'json' };

/**
 * The TON Connect wallets list the web apps show, served by the service itself so that a visit
 * asks nothing of config.ton.org or the wallets' image hosts. It starts as the snapshot shipped in
 * the repository (the SDK's own fallback list, scripts/tonconnect-wallets-snapshot.mjs) and is
 * replaced by the official list when the refresh job (walletsRefresh.ts) has fetched one. Icons
 * are served from here too: the fetched image, or a neutral placeholder until it is fetched.
 */

/** One wallet as the official wallets-v2.json lists it (the fields TON Connect reads, and any more). */
export interface WalletEntry {
  app_name: string;
  name: string;
  image: string;
  about_url: string;
  platforms: string[];
  bridge: ({ type: 'sse'; url: string } | { type: 'js'; key: string })[];
  [field: string]: unknown;
}

/** An icon's bytes and type, as fetched. */
export interface WalletIcon {
  body: Buffer;
  contentType: string;
}

/** Bounds on what a wallets list may hold: the official list has about 30 wallets in 40 KB. */
export const MAX_WALLETS = 200;
const MAX_FIELD_CHARS = 2_000;
const APP_NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** Where the pages find the list and the icons (all on the service's own origin). */
export const WALLETS_PATH = '/tonconnect/wallets.json';
export const WALLET_ICONS_PATH = '/tonconnect/wallet-icons';
export const UI_ICONS_PATH = '/tonconnect/ui-icons';

/**
 * Images TON Connect UI names by URL in its own code (the Telegram and TON logos of its buttons):
 * the web apps' build rewrites UI_ICONS_ORIGIN to UI_ICONS_PATH (web/<app>/vite.config.ts), and
 * the refresh job fetches them from here like the wallets' icons.
 */
export const UI_ICONS_ORIGIN = 'https://raw.githubusercontent.com/ton-connect/sdk/main/assets/';
export const UI_ICONS = ['ton-icon-48.png', 'tg.png', 'walletconnect-icon-288.png'] as const;

const isUrl = (value: unknown, protocols: readonly string[]): value is string => {
  if (typeof value !== 'string' || value.length > MAX_FIELD_CHARS) return false;
  try {
    return protocols.includes(new URL(value).protocol);
  } catch {
    return false;
  }
};

/**
 * The entries of a wallets list that TON Connect can use (the checks of its own
 * isCorrectWalletConfigDTO, plus https image and bridge URLs, which the service fetches and the
 * pages' policy names, and a safe app_name, which names the icon's path); others are dropped, as
 * TON Connect drops them. Null when `value` is not a list at all. `allowHttpImages` is for tests,
 * whose image host is a local http server.
 */
export function validWallets(value: unknown, allowHttpImages = false): WalletEntry[] | null {
  const imageProtocols = allowHttpImages ? ['https:', 'http:'] : ['https:'];
  if (!Array.isArray(value)) return null;
  const seen = new Set<string>();
  const wallets: WalletEntry[] = [];
  for (const item of value.slice(0, MAX_WALLETS)) {
    if (!item || typeof item !== 'object') continue;
    const w = item as Record<string, unknown>;
    if (typeof w.app_name !== 'string' || !APP_NAME.test(w.app_name) || seen.has(w.app_name)) continue;
    if (typeof w.name !== 'string' || w.name.length === 0 || w.name.length > 100) continue;
    if (!isUrl(w.image, imageProtocols)) continue;
    // Shown as a link only; the official list has one with a zero-width space before https.
    if (typeof w.about_url !== 'string' || w.about_url.length > MAX_FIELD_CHARS) continue;
    if (!Array.isArray(w.platforms) || w.platforms.length === 0) continue;
    if (!w.platforms.every((p) => typeof p === 'string' && p.length <= 40)) continue;
    if (!Array.isArray(w.bridge) || w.bridge.length === 0) continue;
    const bridgesOk = w.bridge.every(
      (b) =>
        b &&
        typeof b === 'object' &&
        ((b.type === 'sse' && isUrl(b.url, ['https:'])) ||
          (b.type === 'js' && typeof b.key === 'string' && b.key.length <= 100)),
    );
    if (!bridgesOk) continue;
    seen.add(w.app_name);
    wallets.push(w as WalletEntry);
  }
  return wallets;
}

export class WalletsCatalog {
  private wallets: WalletEntry[];
  private icons = new Map<string, WalletIcon>();
  private uiIcons = new Map<string, WalletIcon>();
  /** Where the list came from, for operators: the snapshot, or the URL and when. */
  source: string;

  constructor(initial: WalletEntry[] = SNAPSHOT_WALLETS, source = snapshot.source) {
    this.wallets = initial;
    this.source = source;
  }

  /** The list as the pages get it: each image on our own origin. */
  publicList(): WalletEntry[] {
    return this.wallets.map((w) => ({
      ...w,
      image: `${WALLET_ICONS_PATH}/${encodeURIComponent(w.app_name)}`,
    }));
  }

  /** The wallets as fetched (their own image URLs), for the refresh job. */
  entries(): readonly WalletEntry[] {
    return this.wallets;
  }

  /**
   * The https origins of the wallets' HTTP bridges: what a page must be allowed to connect to
   * once the person has chosen a wallet (the Content-Security-Policy's connect-src).
   */
  bridgeOrigins(): string[] {
    const origins = new Set<string>();
    for (const wallet of this.wallets) {
      for (const bridge of wallet.bridge) {
        if (bridge.type === 'sse') origins.add(new URL(bridge.url).origin);
      }
    }
    return [...origins].sort();
  }

  /** Replaces the list; icons of wallets no longer listed, or whose image changed, are dropped. */
  replace(wallets: WalletEntry[], source: string) {
    const images = new Map(this.wallets.map((w) => [w.app_name, w.image]));
    this.wallets = wallets;
    this.source = source;
    for (const wallet of wallets) {
      if (images.get(wallet.app_name) !== wallet.image) this.icons.delete(wallet.app_name);
    }
    const listed = new Set(wallets.map((w) => w.app_name));
    for (const name of this.icons.keys()) if (!listed.has(name)) this.icons.delete(name);
  }

  icon(appName: string): WalletIcon | null {
    return this.icons.get(appName) ?? null;
  }

  hasIcon(appName: string): boolean {
    return this.icons.has(appName);
  }

  setIcon(appName: string, icon: WalletIcon) {
    if (this.wallets.some((w) => w.app_name === appName)) this.icons.set(appName, icon);
  }

  uiIcon(name: string): WalletIcon | null {
    return this.uiIcons.get(name) ?? null;
  }

  setUiIcon(name: string, icon: WalletIcon) {
    if ((UI_ICONS as readonly string[]).includes(name)) this.uiIcons.set(name, icon);
  }

  isListed(appName: string): boolean {
    return this.wallets.some((w) => w.app_name === appName);
  }
}

const SNAPSHOT_WALLETS: WalletEntry[] = validWallets(snapshot.wallets) ?? [];

/**
 * Shown for a wallet whose icon has not been fetched (no internet yet, or its host failed):
 * a neutral wallet shape, so the page never loads the icon from the wallet's own host.
 */
export const PLACEHOLDER_ICON = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96" viewBox="0 0 96 96">' +
    '<rect width="96" height="96" rx="22" fill="#8e9aa7"/>' +
    '<rect x="22" y="30" width="52" height="38" rx="7" fill="none" stroke="#fff" stroke-width="5"/>' +
    '<path d="M56 43h18v12H56a6 6 0 0 1 0-12z" fill="#fff"/></svg>',
);
