import { TonConnect, TonConnectUIProvider, type UIWallet } from '@tonconnect/ui-react';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import './styles.css';

// The manifest is what a wallet shows about us; wallets fetch it, the page does not.
const manifestUrl = `${window.location.origin}/console/tonconnect-manifest.json`;

/**
 * Wallets to list besides TON Connect's public list (a self-hosted or test wallet with its
 * jsBridgeKey), given by whoever embeds the page before it loads: `window.handoffConsoleWallets`.
 * The browser tests list their injected test wallet this way.
 */
const includeWallets = (window as { handoffConsoleWallets?: UIWallet[] }).handoffConsoleWallets ?? [];

/**
 * The wallets list and icons come from the service (/tonconnect/wallets.json), not from
 * config.ton.org and the wallets' image hosts; TON Connect's analytics are off. Nothing leaves
 * for anyone else until the person chooses a wallet (docs/decisions.md says what goes where).
 */
const connector = new TonConnect({
  manifestUrl,
  walletsListSource: `${window.location.origin}/tonconnect/wallets.json`,
  analytics: { mode: 'off' },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <TonConnectUIProvider
      connector={connector}
      walletsListConfiguration={{ includeWallets }}
      analytics={{ mode: 'off' }}
    >
      <App />
    </TonConnectUIProvider>
  </StrictMode>,
);
