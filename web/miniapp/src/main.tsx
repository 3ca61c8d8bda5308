import { TonConnect, TonConnectUIProvider } from '@tonconnect/ui-react';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { setInitData } from './api';
import { i18next, pickLanguage, startI18n } from './i18n';
import { startTelegram } from './telegram';
import { injectedWallets } from './wallets';
import './styles.css';

const root = createRoot(document.getElementById('root') as HTMLElement);
const launch = startTelegram();
// Telegram's language until the profile's own choice is known (App switches to it then).
startI18n(pickLanguage(launch?.languageCode, navigator.language));
if (!launch) {
  root.render(
    <main className="app">
      <h1 className="screen-title">Handoff</h1>
      <p>{i18next.t('app.notInTelegram')}</p>
    </main>,
  );
} else {
  setInitData(launch.initData);
  const manifestUrl = `${location.origin}/tonconnect-manifest.json`;
  // The service serves the wallets list and their icons (no request to config.ton.org or the
  // wallets' image hosts before a wallet is chosen). No analytics are sent.
  const connector = new TonConnect({
    manifestUrl,
    walletsListSource: `${location.origin}/tonconnect/wallets.json`,
    analytics: { mode: 'off' },
  });
  root.render(
    <StrictMode>
      <TonConnectUIProvider
        connector={connector}
        restoreConnection={false}
        walletsListConfiguration={{ includeWallets: injectedWallets() }}
        analytics={{ mode: 'off' }}
      >
        <App startParam={launch.startParam} />
      </TonConnectUIProvider>
    </StrictMode>,
  );
}
