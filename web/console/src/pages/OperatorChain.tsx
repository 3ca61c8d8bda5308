import { type FormEvent, useState } from 'react';
import { ErrorLine } from '../App';
import { adminApi, type Json } from '../api';
import {
  providerErrorLabel,
  unmatchedReasonLabel,
  watcherBacklogLabel,
  watcherProblemsLabel,
} from '../chainLabels';
import { currencyOf, formatAmount, formatUnitsAmount } from '../ton';

const when = (iso: string) => iso.slice(0, 16).replace('T', ' ');
/** An unmatched deposit's amount in what arrived (a foreign jetton's is the TON it brought). */
const amountOf = (deposit: Json) => formatAmount(deposit.amount, currencyOf(deposit));
const short = (hash: string) => `${hash.slice(0, 12)}…`;
/** An address short enough for a table cell; the full one is its tooltip and in the chain's history. */
const shortAddress = (address: string) => `${address.slice(0, 6)}…${address.slice(-6)}`;

/** GET /admin/chain: wallets, the deposit watcher, transfers by state, the payout pause, the provider. */
export function ChainStatus({ chain }: { chain: Json | null }) {
  if (!chain) return null;
  const watcher = chain.watcher;
  return (
    <section className="card" aria-labelledby="op-chain">
      <h2 id="op-chain">Chain status</h2>
      <dl className="facts">
        <dt>Network</dt>
        <dd>{chain.network}</dd>
        <dt>Hot wallet</dt>
        <dd>
          <code>{chain.hotWallet.address}</code>{' '}
          {chain.hotWallet.balanceNano !== null
            ? formatUnitsAmount(chain.hotWallet.balanceNano, 'TON')
            : `balance unknown: ${chain.hotWallet.balanceError}`}
        </dd>
        <dt>Deposit address</dt>
        <dd>
          <code>{chain.depositAddress}</code>
        </dd>
        <dt>Deposit watcher</dt>
        <dd>
          {watcher
            ? `${watcher.cursor ? `at lt ${watcher.cursor.lt}` : 'no transaction seen yet'}; ${
                watcher.lagSec === null ? 'not synced yet' : `synced ${watcher.lagSec} s ago`
              }`
            : 'not used in the sandbox: the faucet credits its deposits at once'}
        </dd>
        {watcher && watcherBacklogLabel(watcher.walk) ? (
          <>
            <dt>Backlog</dt>
            <dd>{watcherBacklogLabel(watcher.walk)}</dd>
          </>
        ) : null}
        {watcher ? (
          <>
            <dt>Problem transactions</dt>
            <dd className="breakable">{watcherProblemsLabel(watcher)}</dd>
          </>
        ) : null}
        <dt>Transfers</dt>
        <dd>
          {chain.transfers.pending} pending, {chain.transfers.sent} sent, {chain.transfers.confirmed}{' '}
          confirmed
          {chain.transfers.oldestUnconfirmedAgeSec !== null
            ? `; oldest unconfirmed ${chain.transfers.oldestUnconfirmedAgeSec} s`
            : ''}
        </dd>
        <dt>Payouts</dt>
        <dd>{chain.payoutsPaused ? `paused: ${chain.payoutsPaused}` : 'running'}</dd>
        <UsdtFacts usdt={chain.usdt} />
        <dt>Provider</dt>
        <dd>
          {providerErrorLabel(chain.lastProviderError)}
          {chain.providerRequests !== null ? `; ${chain.providerRequests} requests` : ''}
        </dd>
      </dl>
    </section>
  );
}

/**
 * GET /admin/chain `usdt`: the hot wallet's USDT (and how much transfers in flight will take), the
 * TON it has left to pay each USDT payout's gas, and why USDT payouts wait, if they do.
 */
function UsdtFacts({ usdt }: { usdt: Json | null | undefined }) {
  if (!usdt) {
    return (
      <>
        <dt>USDT</dt>
        <dd>not enabled on this service</dd>
      </>
    );
  }
  return (
    <>
      <dt>Hot wallet USDT</dt>
      <dd>
        {usdt.hotBalance !== null
          ? formatUnitsAmount(usdt.hotBalance, 'USDT')
          : `balance unknown: ${usdt.balanceError}`}
        {usdt.promisedToTransfers !== null && usdt.promisedToTransfers !== undefined
          ? `; ${formatUnitsAmount(usdt.promisedToTransfers, 'USDT')} promised to transfers in flight`
          : ''}
      </dd>
      <dt>USDT jetton</dt>
      <dd>
        <code>{usdt.master}</code>
      </dd>
      <dt>Gas for USDT payouts</dt>
      <dd>
        {usdt.tonLeftForGasNano !== null
          ? `${formatUnitsAmount(usdt.tonLeftForGasNano, 'TON')} left`
          : 'unknown (the TON balance is unknown)'}
        ; {formatUnitsAmount(usdt.tonAttachedPerPayoutNano, 'TON')} attached to each payout
      </dd>
      <dt>USDT payouts</dt>
      <dd>{usdt.payoutsPaused ? `paused: ${usdt.payoutsPaused}` : 'running'}</dd>
    </>
  );
}

/** The last GET /admin/reconciliation: the result, or why it could not run. */
export type Reconciliation = { result: Json } | { error: string } | null;

export function ReconciliationCard({
  reconciliation,
  running,
  onRun,
}: {
  reconciliation: Reconciliation;
  running: boolean;
  onRun: () => void;
}) {
  const result = reconciliation && 'result' in reconciliation ? reconciliation.result : null;
  return (
    <section className="card" aria-labelledby="op-reconciliation">
      <h2 id="op-reconciliation">Reconciliation</h2>
      <div className="row">
        <button type="button" onClick={onRun} disabled={running}>
          {running ? 'Reconciling…' : 'Run reconciliation'}
        </button>
        <span role="status">
          {running
            ? 'Reading the wallet’s history…'
            : result
              ? `${result.ok ? 'OK' : `${result.differences.length} differences`}: ${result.checkedRows} ledger rows checked against ${result.chainTransactions} chain transactions.`
              : reconciliation && 'error' in reconciliation
                ? reconciliation.error
                : ''}
        </span>
      </div>
      {result && result.differences.length > 0 ? (
        <table aria-label="Reconciliation differences" className="reflow">
          <thead>
            <tr>
              <th>Kind</th>
              <th>Ledger row</th>
              <th>Chain</th>
              <th>Detail</th>
            </tr>
          </thead>
          <tbody>
            {result.differences.map((d: Json) => (
              <tr key={`${d.kind}-${d.ledgerId}-${d.txHash}`}>
                <td data-label="Kind">{d.kind}</td>
                <td data-label="Ledger row">{d.ledgerId ?? '—'}</td>
                <td data-label="Chain">
                  <code>{d.txHash ? short(d.txHash) : '—'}</code>
                </td>
                <td data-label="Detail">{d.detail}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

/** Open unmatched deposits, each credited to an agent or recorded as sent back. */
export function UnmatchedDeposits({
  token,
  deposits,
  onChange,
}: {
  token: string;
  deposits: Json[];
  onChange: () => void;
}) {
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const act = async (work: () => Promise<string>) => {
    setError(null);
    setMessage(null);
    try {
      setMessage(await work());
      onChange();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const assign = (deposit: Json) => (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const agentId = String(new FormData(event.currentTarget).get('agentId') ?? '').trim();
    void act(async () => {
      await adminApi(token, `/admin/deposits/unmatched/${deposit.txHash}/assign`, 'POST', { agentId });
      return `Credited ${amountOf(deposit)} to ${agentId}.`;
    });
  };
  const sentBack = (deposit: Json) => {
    if (!window.confirm(`Record that you sent ${amountOf(deposit)} back to ${deposit.fromAddress}?`)) return;
    void act(async () => {
      await adminApi(token, `/admin/deposits/unmatched/${deposit.txHash}/returned`, 'POST');
      return `Recorded ${amountOf(deposit)} as sent back.`;
    });
  };
  return (
    <section className="card" aria-labelledby="op-unmatched">
      <h2 id="op-unmatched">Unmatched deposits</h2>
      <table aria-label="Unmatched deposits" className="reflow">
        <thead>
          <tr>
            <th>When</th>
            <th>From</th>
            <th>Amount</th>
            <th>Memo</th>
            <th>Why</th>
            <th>Chain transaction</th>
            <th>Action</th>
          </tr>
        </thead>
        <tbody>
          {deposits.map((d: Json) => (
            <tr key={d.txHash}>
              <td data-label="When">{when(d.createdAt)}</td>
              <td data-label="From">
                <code title={d.fromAddress}>{shortAddress(d.fromAddress)}</code>
              </td>
              <td data-label="Amount" className="num">
                {amountOf(d)}
              </td>
              <td data-label="Memo" className="breakable">
                {d.memo === '' ? '(none)' : d.memo}
              </td>
              <td data-label="Why">{unmatchedReasonLabel(d.reason)}</td>
              <td data-label="Chain transaction">
                <code>{short(d.txHash)}</code>
              </td>
              <td data-label="Action">
                <form className="row nowrap" onSubmit={assign(d)}>
                  <input
                    name="agentId"
                    aria-label="Agent to credit"
                    placeholder="agt_…"
                    defaultValue={d.reason === 'below_minimum' ? d.memo : ''}
                    required
                    size={12}
                  />
                  <button type="submit">Assign</button>
                  <button type="button" onClick={() => sentBack(d)}>
                    Sent back
                  </button>
                </form>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {deposits.length === 0 ? <p className="muted">None: every deposit named its agent.</p> : null}
      {message ? <p role="status">{message}</p> : null}
      <ErrorLine error={error} />
    </section>
  );
}
