import { TonConnect, TonConnectUIProvider } from '@tonconnect/ui-react';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import './styles.css';
import { includeWallets } from './wallets';

// The manifest is what a wallet shows about us; wallets fetch it, the page does not.
const manifestUrl = `${window.location.origin}/console/tonconnect-manifest.json`;

/**
 * The wallets list and icons come from the service (/tonconnect/wallets.json), not from
 * config.ton.org and the wallets' image hosts; TON Connect's analytics are off. Sign-in offers its
 * own list of wallets (pages/SignIn.tsx): nothing leaves for anyone else until the person chooses
 * one (docs/decisions/web-apps-third-parties-csp.md says what goes where).
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
