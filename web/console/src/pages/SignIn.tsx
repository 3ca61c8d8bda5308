import { useTonConnectUI } from '@tonconnect/ui-react';
import { useEffect, useRef, useState } from 'react';
import { ErrorLine, type Session } from '../App';
import { api } from '../api';
import { type WalletChoice, walletChoices } from '../wallets';

/**
 * Sign-in: the server issues a single-use payload, the wallet signs it in TON Connect's ton_proof,
 * and the server checks the proof and sets the session cookie. No passwords.
 *
 * The page lists the wallets itself (from the service's list, with the service's icons) instead
 * of opening TON Connect's modal at once: on a wide screen that modal shows a QR code for any
 * wallet and so listens on every wallet's bridge as soon as it opens. Here only the chosen
 * wallet is contacted: through the page (an injected wallet) or TON Connect's modal for that one
 * wallet (its QR code or link, and its bridge).
 */
export function SignIn({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [tonConnectUI] = useTonConnectUI();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [choices, setChoices] = useState<{ payload: string; wallets: WalletChoice[] } | null>(null);
  const done = useRef(false);

  useEffect(
    () =>
      // biome-ignore lint/nursery/noMisusedPromises: the handler catches its own failures; TON Connect need not await it
      tonConnectUI.onStatusChange(async (wallet) => {
        const item = wallet?.connectItems?.tonProof;
        if (!wallet || !item || !('proof' in item) || done.current) return;
        done.current = true;
        try {
          const session = await api('POST', '/auth/login', {
            address: wallet.account.address,
            network: wallet.account.chain,
            public_key: wallet.account.publicKey,
            proof: { ...item.proof, state_init: wallet.account.walletStateInit },
          });
          onSignedIn(session);
        } catch (e) {
          done.current = false;
          setError((e as Error).message);
          await tonConnectUI.disconnect().catch(() => undefined);
        }
      }),
    [tonConnectUI, onSignedIn],
  );

  const start = async () => {
    setError(null);
    setBusy(true);
    try {
      if (tonConnectUI.connected) await tonConnectUI.disconnect();
      const { payload } = await api('POST', '/auth/challenge');
      tonConnectUI.setConnectRequestParameters({ state: 'ready', value: { tonProof: payload } });
      setChoices({ payload, wallets: walletChoices(await tonConnectUI.getWallets()) });
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const choose = async (wallet: WalletChoice, payload: string) => {
    setError(null);
    try {
      if (wallet.jsBridgeKey) {
        await tonConnectUI.connector.connect({ jsBridgeKey: wallet.jsBridgeKey }, { tonProof: payload });
      } else {
        await tonConnectUI.openSingleWalletModal(wallet.appName);
      }
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <main className="page narrow">
      <h1>Handoff console</h1>
      <p>
        Sign in with the TON wallet that owns your agents. Your wallet signs a one-time challenge; no
        password.
      </p>
      <button type="button" className="primary" onClick={start} disabled={busy}>
        Sign in with wallet
      </button>
      <ErrorLine error={error} />
      {choices ? (
        <section aria-labelledby="choose-wallet" className="wallet-choice">
          <h2 id="choose-wallet">Choose your wallet</h2>
          <p className="muted">Nothing is sent to a wallet or its servers until you choose it.</p>
          <ul aria-label="Wallets" className="wallets">
            {choices.wallets.map((w) => (
              <li key={w.appName}>
                <button type="button" className="wallet-tile" onClick={() => choose(w, choices.payload)}>
                  <img src={w.imageUrl} alt="" width={48} height={48} />
                  <span>{w.name}</span>
                </button>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <p className="muted">
        Operators: <a href="#/operator">operator pages</a>
      </p>
    </main>
  );
}
