import { useTonConnectUI } from '@tonconnect/ui-react';
import qrcode from 'qrcode-generator';
import { useEffect, useMemo, useState } from 'react';
import { ErrorLine } from '../App';
import { api, type Json } from '../api';
import { CopyButton } from '../components';
import { nanoOf, tonOf } from '../ton';

/** How long a wallet may take to send the transfer before it must not any more. */
const VALID_FOR_S = 5 * 60;

/** Deposit address, memo and QR (made here, no network), a TON Connect transfer, and the sandbox faucet. */
export function TopUp({
  agentId,
  deposit,
  deposited,
  onCredited,
}: {
  agentId: string;
  deposit: Json;
  /** The agent's deposits so far (TON): when it grows after a wallet transfer, the deposit arrived. */
  deposited: string;
  onCredited: () => void;
}) {
  const [tonConnectUI] = useTonConnectUI();
  const [amount, setAmount] = useState('10');
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Deposits so far when a wallet transfer was sent; the page's refresh tells when it is credited.
  const [sentAt, setSentAt] = useState<string | null>(null);
  useEffect(() => {
    if (sentAt === null || deposited === sentAt) return;
    setMessage(`Deposit credited: ${tonOf(nanoOf(deposited) - nanoOf(sentAt))} TON.`);
    setSentAt(null);
  }, [deposited, sentAt]);
  const qr = useMemo(() => {
    const code = qrcode(0, 'M');
    code.addData(deposit.link);
    code.make();
    return code.createDataURL(4, 2);
  }, [deposit.link]);

  const pay = async () => {
    setError(null);
    setMessage(null);
    try {
      await tonConnectUI.sendTransaction({
        validUntil: Math.floor(Date.now() / 1000) + VALID_FOR_S,
        messages: [{ address: deposit.address, amount: nanoOf(amount).toString(), payload: deposit.payload }],
      });
      setSentAt(deposited);
      setMessage('Transfer sent from your wallet. The balance updates when the deposit is credited.');
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const faucet = async () => {
    setError(null);
    setMessage(null);
    setSentAt(null);
    try {
      const r = await api('POST', `/agents/${agentId}/faucet`, { amount });
      setMessage(`Sandbox faucet credited ${r.transaction.amount} TON.`);
      onCredited();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <section className="card" aria-labelledby="topup-title">
      <h2 id="topup-title">Top up</h2>
      <div className="row top">
        <img src={qr} alt="QR code of the deposit transfer" width={164} height={164} />
        <dl>
          <dt>Deposit address</dt>
          <dd className="copyable">
            <code>{deposit.address}</code>
            <CopyButton value={deposit.address} what="deposit address" />
          </dd>
          <dt>Memo (transfer comment)</dt>
          <dd className="copyable">
            <code>{deposit.memo}</code>
            <CopyButton value={deposit.memo} what="memo" />
          </dd>
          <dd className="muted">
            Send TON to this address with this memo, or the deposit cannot be matched.
          </dd>
        </dl>
      </div>
      <div className="row">
        <label>
          Amount (TON){' '}
          <input value={amount} onChange={(e) => setAmount(e.target.value)} inputMode="decimal" />
        </label>
        <button type="button" onClick={pay}>
          Pay with wallet
        </button>
        {deposit.network === 'sandbox' ? (
          <button type="button" className="primary" onClick={faucet}>
            Sandbox faucet
          </button>
        ) : null}
      </div>
      {message ? <p role="status">{message}</p> : null}
      <ErrorLine error={error} />
    </section>
  );
}
