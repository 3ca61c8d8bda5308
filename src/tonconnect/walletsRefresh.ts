import { boundedGet } from './boundedGet.js';
import {
  UI_ICONS,
  UI_ICONS_ORIGIN,
  validWallets,
  type WalletIcon,
  type WalletsCatalog,
} from './walletsCatalog.js';

/** The official list TON Connect itself reads by default. */
export const OFFICIAL_WALLETS_URL = 'https://config.ton.org/wallets-v2.json';
/** How often the list and its icons are fetched again. */
export const REFRESH_INTERVAL_MS = 24 * 60 * 60 * 1000;
/** After a failed refresh (no internet, say), the next try comes sooner. */
export const RETRY_INTERVAL_MS = 60 * 60 * 1000;
const LIST_MAX_BYTES = 1_000_000;
const ICON_MAX_BYTES = 256 * 1024;
const TIMEOUT_MS = 10_000;
/** Raster images only: an SVG could carry script, and the icons are shown as <img> anyway. */
const ICON_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;
const LIST_TYPES = ['application/json', 'text/plain'];

/** The bytes each image type starts with: an answer that only claims a type is refused. */
function looksLike(contentType: string, body: Buffer): boolean {
  const starts = (...bytes: number[]) => bytes.every((b, i) => body[i] === b);
  switch (contentType) {
    case 'image/png':
      return starts(0x89, 0x50, 0x4e, 0x47);
    case 'image/jpeg':
      return starts(0xff, 0xd8, 0xff);
    case 'image/gif':
      return starts(0x47, 0x49, 0x46, 0x38);
    case 'image/webp':
      return starts(0x52, 0x49, 0x46, 0x46) && body.subarray(8, 12).toString('latin1') === 'WEBP';
    default:
      return false;
  }
}

export interface RefreshOptions {
  /** Tests serve the list and icons from a local server (never set in the service). */
  allowPrivate?: boolean;
  /** Where the UI's own images are fetched from (UI_ICONS_ORIGIN; a local server in tests). */
  uiIconsOrigin?: string;
  /** Checked between icons: a stopping service fetches no more. */
  stopped?: () => boolean;
}

export interface RefreshResult {
  wallets: number;
  iconsFetched: number;
  iconsFailed: number;
}

async function fetchIcon(url: string, options: RefreshOptions): Promise<WalletIcon> {
  const { body, contentType } = await boundedGet(url, {
    maxBytes: ICON_MAX_BYTES,
    timeoutMs: TIMEOUT_MS,
    accept: ICON_TYPES,
    allowPrivate: options.allowPrivate ?? false,
  });
  if (!looksLike(contentType, body)) throw new Error(`${url} is not the ${contentType} it says it is`);
  return { body, contentType };
}

/**
 * Fetches the wallets list from `url` and, when it is a valid non-empty list, makes it the
 * catalog's; then fetches each icon the catalog lacks (one at a time: a few dozen small files
 * once a day). A wallet whose icon fails keeps the placeholder until the next refresh. Throws
 * when the list cannot be had; the catalog then keeps what it had (the snapshot at first).
 */
export async function refreshWallets(
  catalog: WalletsCatalog,
  url: string,
  now: Date,
  options: RefreshOptions = {},
): Promise<RefreshResult> {
  const { body } = await boundedGet(url, {
    maxBytes: LIST_MAX_BYTES,
    timeoutMs: TIMEOUT_MS,
    accept: LIST_TYPES,
    allowPrivate: options.allowPrivate ?? false,
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw new Error(`${url} is not JSON`);
  }
  const wallets = validWallets(parsed, options.allowPrivate ?? false);
  if (!wallets || wallets.length === 0) throw new Error(`${url} holds no usable wallet`);
  catalog.replace(wallets, `${url} at ${now.toISOString()}`);
  let iconsFetched = 0;
  let iconsFailed = 0;
  for (const wallet of catalog.entries()) {
    if (options.stopped?.()) break;
    if (catalog.hasIcon(wallet.app_name)) continue;
    try {
      catalog.setIcon(wallet.app_name, await fetchIcon(wallet.image, options));
      iconsFetched++;
    } catch {
      iconsFailed++;
    }
  }
  const uiOrigin = options.uiIconsOrigin ?? UI_ICONS_ORIGIN;
  for (const name of UI_ICONS) {
    if (options.stopped?.()) break;
    if (catalog.uiIcon(name)) continue;
    try {
      catalog.setUiIcon(name, await fetchIcon(`${uiOrigin}${name}`, options));
      iconsFetched++;
    } catch {
      iconsFailed++;
    }
  }
  return { wallets: wallets.length, iconsFetched, iconsFailed };
}

/**
 * Refreshes at start and then daily (hourly after a failure) until stopped. Failures are logged
 * as warnings: without internet the service goes on with what it has.
 */
export function startWalletsRefresh(
  catalog: WalletsCatalog,
  url: string,
  log: { info: (o: object, m: string) => void; warn: (o: object, m: string) => void },
  now: () => Date = () => new Date(),
) {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    void (async () => {
      let next = REFRESH_INTERVAL_MS;
      try {
        const result = await refreshWallets(catalog, url, now(), { stopped: () => stopped });
        log.info(result, 'TON Connect wallets list refreshed');
      } catch (error) {
        next = RETRY_INTERVAL_MS;
        log.warn(
          { err: (error as Error).message, serving: catalog.source },
          'TON Connect wallets list not refreshed: serving the list the service has',
        );
      }
      if (!stopped) timer = setTimeout(tick, next);
    })();
  };
  timer = setTimeout(tick, 0);
  return {
    /** Stops at once; a fetch under way ends within its time-out and changes only memory. */
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
