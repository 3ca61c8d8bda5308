import {
  isWalletInfoCurrentlyInjected,
  isWalletInfoRemote,
  type UIWallet,
  type WalletInfo,
} from '@tonconnect/ui-react';

type Bridge = { tonconnect?: { walletInfo?: Record<string, unknown>; isWalletBrowser?: boolean } };

/**
 * Wallets whose bridge is injected into this page (a wallet's own browser, or a test's wallet)
 * and describe themselves (`tonconnect.walletInfo`): offered besides the list below.
 */
export function injectedWallets(): UIWallet[] {
  const found: UIWallet[] = [];
  for (const key of Object.keys(window)) {
    const bridge = (window as unknown as Record<string, Bridge | undefined>)[key];
    const info = bridge?.tonconnect?.walletInfo;
    if (!info || typeof info.name !== 'string' || typeof info.app_name !== 'string') continue;
    found.push({
      appName: info.app_name,
      name: info.name,
      imageUrl: String(info.image ?? ''),
      aboutUrl: String(info.about_url ?? ''),
      jsBridgeKey: key,
      platforms: (info.platforms as UIWallet['platforms']) ?? ['chrome'],
    });
  }
  return found;
}

/**
 * The wallet whose own browser the app runs in (its injected bridge says isWalletBrowser): the
 * app connects to it directly instead of offering a list.
 */
export function embeddedWallet(): UIWallet | null {
  return (
    injectedWallets().find(
      (w) =>
        'jsBridgeKey' in w &&
        (window as unknown as Record<string, Bridge | undefined>)[w.jsBridgeKey]?.tonconnect
          ?.isWalletBrowser === true,
    ) ?? null
  );
}

/** A wallet the worker can choose: one injected into this page, or one reached through its bridge. */
export interface WalletChoice {
  appName: string;
  name: string;
  imageUrl: string;
  /** Injected: connect through the page's JS bridge; remote: TON Connect's modal for this wallet. */
  jsBridgeKey: string | null;
}

/**
 * The wallets to offer, in the list's order: those injected into the page, then those of the
 * service's list (/tonconnect/wallets.json, icons from the service) that are injected or have an
 * HTTP bridge. Listing them here, not in TON Connect's modal, means nothing is contacted until
 * one is chosen (the modal, in a window wider than 440 px, listens on every bridge at once).
 */
export function walletChoices(listed: WalletInfo[]): WalletChoice[] {
  const choices = new Map<string, WalletChoice>();
  for (const w of injectedWallets()) {
    if ('jsBridgeKey' in w) {
      choices.set(w.appName, {
        appName: w.appName,
        name: w.name,
        imageUrl: w.imageUrl,
        jsBridgeKey: w.jsBridgeKey,
      });
    }
  }
  for (const w of listed) {
    if (choices.has(w.appName)) continue;
    if (isWalletInfoCurrentlyInjected(w)) {
      choices.set(w.appName, {
        appName: w.appName,
        name: w.name,
        imageUrl: w.imageUrl,
        jsBridgeKey: w.jsBridgeKey,
      });
    } else if (isWalletInfoRemote(w)) {
      choices.set(w.appName, { appName: w.appName, name: w.name, imageUrl: w.imageUrl, jsBridgeKey: null });
    }
  }
  return [...choices.values()];
}
