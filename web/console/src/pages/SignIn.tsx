import { useTonConnectUI } from '@tonconnect/ui-react';
import { useEffect, useRef, useState } from 'react';
import { ErrorLine, type Session } from '../App';
import { api } from '../api';

/**
 * Sign-in: the server issues a single-use payload, the wallet signs it in TON Connect's ton_proof,
 * and the server checks the proof and sets the session cookie. No passwords.
 */
export function SignIn({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [tonConnectUI] = useTonConnectUI();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const done = useRef(false);

  useEffect(
    () =>
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
      await tonConnectUI.openModal();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
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
      <p className="muted">
        Operators: <a href="#/operator">operator pages</a>
      </p>
    </main>
  );
}
