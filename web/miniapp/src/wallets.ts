import type { UIWallet } from '@tonconnect/ui-react';

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
