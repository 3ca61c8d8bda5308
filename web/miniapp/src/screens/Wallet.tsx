import { useTonConnectUI, type Wallet } from '@tonconnect/ui-react';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, type Worker } from '../api';
import { haptic } from '../telegram';
import { ErrorNote, Section } from '../ui';
import { embeddedWallet, type WalletChoice, walletChoices } from '../wallets';

/**
 * Connecting a wallet proves it is the worker's: the service issues a single-use payload, the
 * wallet signs it into a TON Connect `ton_proof`, and the service checks the signature against
 * the wallet contract's key before it pays rewards there.
 */
export function WalletSection({ me, onSaved }: { me: Worker; onSaved: (worker: Worker) => void }) {
  const { t } = useTranslation();
  const [tonConnectUI] = useTonConnectUI();
  const [state, setState] = useState<'idle' | 'waiting' | 'saving'>('idle');
  const [error, setError] = useState<unknown>(null);
  const [choices, setChoices] = useState<{ payload: string; wallets: WalletChoice[] } | null>(null);
  const waiting = useRef(false);

  const saveLatest = useRef<(wallet: Wallet) => Promise<void>>(async () => undefined);
  useEffect(
    () =>
      tonConnectUI.onStatusChange((wallet) => {
        if (!wallet || !waiting.current) return;
        waiting.current = false;
        void saveLatest.current(wallet);
      }),
    [tonConnectUI],
  );

  useEffect(
    () =>
      tonConnectUI.onModalStateChange((modal) => {
        if (modal.status === 'closed' && waiting.current && modal.closeReason !== 'wallet-selected') {
          waiting.current = false;
          setState('idle');
        }
      }),
    [tonConnectUI],
  );

  saveLatest.current = save;
  async function save(wallet: Wallet) {
    setState('saving');
    try {
      const proof = wallet.connectItems?.tonProof;
      if (!proof || !('proof' in proof)) throw new Error(t('wallet.noProof'));
      const { worker } = await api<{ worker: Worker }>('PUT', '/worker/me/wallet', {
        address: wallet.account.address,
        network: wallet.account.chain,
        public_key: wallet.account.publicKey,
        proof: { ...proof.proof, state_init: wallet.account.walletStateInit },
      });
      onSaved(worker);
      haptic.success();
    } catch (e) {
      setError(e);
      haptic.error();
    } finally {
      setState('idle');
      setChoices(null);
      // The address is saved; the session is not needed (a later change asks for a new proof).
      await tonConnectUI.disconnect().catch(() => undefined);
    }
  }

  const connect = async () => {
    setError(null);
    setState('waiting');
    try {
      if (tonConnectUI.connected) await tonConnectUI.disconnect();
      const { payload } = await api<{ payload: string }>('POST', '/worker/me/wallet/challenge');
      tonConnectUI.setConnectRequestParameters({ state: 'ready', value: { tonProof: payload } });
      const embedded = embeddedWallet();
      if (embedded) {
        waiting.current = true;
        await tonConnectUI.openSingleWalletModal(embedded.appName);
      } else {
        setChoices({ payload, wallets: walletChoices(await tonConnectUI.getWallets()) });
        setState('idle');
      }
    } catch (e) {
      waiting.current = false;
      setState('idle');
      setError(e);
    }
  };

  /** Only now is the chosen wallet contacted: its bridge, link or QR code, or the page's bridge. */
  const choose = async (wallet: WalletChoice, payload: string) => {
    setError(null);
    setState('waiting');
    waiting.current = true;
    try {
      if (wallet.jsBridgeKey) {
        await tonConnectUI.connector.connect({ jsBridgeKey: wallet.jsBridgeKey }, { tonProof: payload });
      } else {
        await tonConnectUI.openSingleWalletModal(wallet.appName);
      }
    } catch (e) {
      waiting.current = false;
      setState('idle');
      setError(e);
    }
  };

  return (
    <Section title={t('wallet.title')} plain>
      {me.walletAddress ? (
        <p className="small">
          {t('wallet.paidTo')} <code className="hash">{me.walletAddress}</code>
        </p>
      ) : (
        <p className="small muted">{t('wallet.connectHint')}</p>
      )}
      <ErrorNote error={error} />
      <button type="button" className="wide" onClick={connect} disabled={state !== 'idle'}>
        {state === 'saving'
          ? t('wallet.saving')
          : state === 'waiting'
            ? t('wallet.waiting')
            : me.walletAddress
              ? t('wallet.change')
              : t('wallet.connect')}
      </button>
      {choices && state !== 'saving' ? (
        <div className="wallet-choice">
          <p className="small muted">{t('wallet.choose')}</p>
          <ul aria-label={t('wallet.wallets')} className="wallets">
            {choices.wallets.map((w) => (
              <li key={w.appName}>
                <button type="button" className="wallet-tile" onClick={() => choose(w, choices.payload)}>
                  <img src={w.imageUrl} alt="" width={44} height={44} />
                  <span>{w.name}</span>
                </button>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </Section>
  );
}
