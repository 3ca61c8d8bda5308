import { useTonConnectUI } from '@tonconnect/ui-react';
import qrcode from 'qrcode-generator';
import { useMemo, useState } from 'react';
import { ErrorLine } from '../App';
import { api, type Json } from '../api';

/** How long a wallet may take to send the transfer before it must not any more. */
const VALID_FOR_S = 5 * 60;

/** Deposit address, memo and QR (made here, no network), a TON Connect transfer, and the sandbox faucet. */
export function TopUp({
  agentId,
  deposit,
  onCredited,
}: {
  agentId: string;
  deposit: Json;
  onCredited: () => void;
}) {
  const [tonConnectUI] = useTonConnectUI();
  const [amount, setAmount] = useState('10');
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const qr = useMemo(() => {
    const code = qrcode(0, 'M');
    code.addData(deposit.link);
    code.make();
    return code.createDataURL(4, 2);
  }, [deposit.link]);

  const nano = (ton: string) => {
    const [whole = '0', fraction = ''] = ton.trim().split('.');
    return (BigInt(whole) * 1_000_000_000n + BigInt(fraction.padEnd(9, '0').slice(0, 9) || '0')).toString();
  };

  const pay = async () => {
    setError(null);
    setMessage(null);
    try {
      await tonConnectUI.sendTransaction({
        validUntil: Math.floor(Date.now() / 1000) + VALID_FOR_S,
        messages: [{ address: deposit.address, amount: nano(amount), payload: deposit.payload }],
      });
      setMessage('Transfer sent from your wallet. The balance updates when the deposit is credited.');
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const faucet = async () => {
    setError(null);
    setMessage(null);
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
          <dd>
            <code>{deposit.address}</code>
          </dd>
          <dt>Memo (transfer comment)</dt>
          <dd>
            <code>{deposit.memo}</code>
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
