import {
  isWalletInfoCurrentlyInjected,
  isWalletInfoRemote,
  type UIWallet,
  type WalletInfo,
} from '@tonconnect/ui-react';

/**
 * Wallets to list besides the service's list (a self-hosted or test wallet with its
 * jsBridgeKey), given by whoever embeds the page before it loads: `window.handoffConsoleWallets`.
 * The browser tests list their injected test wallet this way.
 */
export const includeWallets: UIWallet[] =
  (window as { handoffConsoleWallets?: UIWallet[] }).handoffConsoleWallets ?? [];

/** A wallet the person can choose: one injected into this page, or one reached through its bridge. */
export interface WalletChoice {
  appName: string;
  name: string;
  imageUrl: string;
  /** Injected: connect through the page's JS bridge; remote: TON Connect's modal for this wallet. */
  jsBridgeKey: string | null;
}

const injected = (key: string) => Boolean((window as unknown as Record<string, unknown>)[key]);

/**
 * The wallets to offer, in the list's order: the ones included by the embedder that are present
 * in the page, then those of the service's list (/tonconnect/wallets.json) that are injected into
 * this browser (an extension) or have an HTTP bridge. Their icons come from the service.
 */
export function walletChoices(listed: WalletInfo[]): WalletChoice[] {
  const choices: WalletChoice[] = [];
  const seen = new Set<string>();
  const add = (choice: WalletChoice) => {
    if (seen.has(choice.appName)) return;
    seen.add(choice.appName);
    choices.push(choice);
  };
  for (const w of includeWallets) {
    if ('jsBridgeKey' in w && injected(w.jsBridgeKey)) {
      add({ appName: w.appName, name: w.name, imageUrl: w.imageUrl, jsBridgeKey: w.jsBridgeKey });
    }
  }
  for (const w of listed) {
    if (isWalletInfoCurrentlyInjected(w)) {
      add({ appName: w.appName, name: w.name, imageUrl: w.imageUrl, jsBridgeKey: w.jsBridgeKey });
    } else if (isWalletInfoRemote(w)) {
      add({ appName: w.appName, name: w.name, imageUrl: w.imageUrl, jsBridgeKey: null });
    }
  }
  return choices;
}
