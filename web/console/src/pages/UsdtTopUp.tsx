import { useTonConnectUI } from '@tonconnect/ui-react';
import qrcode from 'qrcode-generator';
import { useEffect, useMemo, useState } from 'react';
import { ErrorLine } from '../App';
import { api, type Json } from '../api';
import { CopyButton } from '../components';

/** How long a wallet may take to send the transfer before it must not any more. */
const VALID_FOR_S = 5 * 60;

/**
 * USDT top-up: a jetton transfer from the owner's wallet to the deposit address with the agent's
 * memo as its forward comment. The server builds the TON Connect message (it goes to the owner's
 * own jetton wallet, with TON for gas), checking the amount and the sender; the page only hands it
 * to the wallet. The QR's link does the same for a wallet app on a phone.
 */
export function UsdtTopUp({
  agentId,
  deposit,
  deposited,
}: {
  agentId: string;
  deposit: Json;
  /** The agent's USDT deposits so far: when it grows after a wallet transfer, the deposit arrived. */
  deposited: string;
}) {
  const [tonConnectUI] = useTonConnectUI();
  const [amount, setAmount] = useState('10');
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [sentAt, setSentAt] = useState<string | null>(null);
  useEffect(() => {
    if (sentAt === null || deposited === sentAt) return;
    setMessage(`USDT deposit credited: the agent has deposited ${deposited} USDT in all.`);
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
      const from = tonConnectUI.account?.address;
      if (!from) throw new Error('Connect your wallet first: the USDT is sent from it.');
      const built = await api('POST', `/agents/${agentId}/usdt-top-up`, { amount, from });
      await tonConnectUI.sendTransaction({
        validUntil: Math.floor(Date.now() / 1000) + VALID_FOR_S,
        messages: [built.message],
      });
      setSentAt(deposited);
      setMessage(
        'USDT transfer sent from your wallet. The USDT balance updates when the deposit is credited.',
      );
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <section className="card" aria-labelledby="usdt-topup-title">
      <h2 id="usdt-topup-title">Top up USDT</h2>
      <div className="row top">
        <img src={qr} alt="QR code of the USDT deposit transfer" width={164} height={164} />
        <dl>
          <dt>Deposit address (USDT)</dt>
          <dd className="copyable">
            <code>{deposit.address}</code>
            <CopyButton value={deposit.address} what="USDT deposit address" />
          </dd>
          <dt>Memo (transfer comment)</dt>
          <dd className="copyable">
            <code>{deposit.memo}</code>
            <CopyButton value={deposit.memo} what="USDT memo" />
          </dd>
          <dd className="muted">
            Send USDT on TON (jetton master <code className="breakable">{deposit.jettonMaster}</code>) to this
            address with this memo, at least {deposit.minimum} USDT; other jettons are not credited.
          </dd>
        </dl>
      </div>
      <div className="row">
        <label>
          Amount (USDT){' '}
          <input value={amount} onChange={(e) => setAmount(e.target.value)} inputMode="decimal" />
        </label>
        <button type="button" onClick={pay}>
          Pay USDT with wallet
        </button>
      </div>
      {message ? <p role="status">{message}</p> : null}
      <ErrorLine error={error} />
    </section>
  );
}
