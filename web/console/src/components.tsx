import { useState } from 'react';

/** A newly created key, shown once, with a copy button. */
export function NewKey({ apiKey, onDone }: { apiKey: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(apiKey).catch(() => undefined);
    setCopied(true);
  };
  return (
    <section className="card notice" aria-label="New API key">
      <p>
        <strong>Your new API key.</strong> Copy it now: it is shown only once.
      </p>
      <input className="secret" aria-label="API key" value={apiKey} readOnly size={70} />
      <div className="row">
        <button type="button" onClick={copy}>
          {copied ? 'Copied' : 'Copy key'}
        </button>
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
    </section>
  );
}

/** One number that matters, with its label. */
export function Stat({ label, value, unit }: { label: string; value: string | number; unit?: string }) {
  return (
    // biome-ignore lint/a11y/useSemanticElements: a value and its label, not form controls (fieldset)
    <div className="stat" role="group" aria-label={label}>
      <div className="stat-value">
        {value}
        {unit ? <small> {unit}</small> : null}
      </div>
      <div className="stat-label">{label}</div>
    </div>
  );
}

/** Where a chain transaction can be looked at; the sandbox has no public explorer. */
export function explorerLink(network: string, txHash: string | null) {
  if (!txHash) return <span className="muted">—</span>;
  if (network === 'sandbox')
    return <code title="sandbox transaction (no public explorer)">{txHash.slice(0, 12)}…</code>;
  const host = network === 'testnet' ? 'testnet.tonviewer.com' : 'tonviewer.com';
  return (
    <a href={`https://${host}/transaction/${txHash}`} target="_blank" rel="noreferrer">
      {txHash.slice(0, 12)}…
    </a>
  );
}
