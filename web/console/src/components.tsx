import type React from 'react';
import { useState } from 'react';
import { agentApi } from './api';
import { taskStatusTone } from './labels';

/**
 * Copies `value` and says so. The visible word is "Copy" (or "Copied"); `what` completes the
 * accessible name ("Copy deposit address") for screen readers, kept in the text so the visible
 * label is part of the name.
 */
export function CopyButton({ value, what }: { value: string; what: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <>
      <button type="button" className="copy" onClick={copy}>
        {state === 'copied' ? 'Copied' : 'Copy'}
        <span className="sr-only"> {what}</span>
      </button>
      <span role="status" className="muted">
        {state === 'failed' ? 'Copying is blocked here: select the text and copy it.' : ''}
      </span>
    </>
  );
}

/** A newly created key, shown once and whole (it wraps), with a copy button. */
export function NewKey({ apiKey, onDone }: { apiKey: string; onDone: () => void }) {
  return (
    <section className="card notice" aria-label="New API key">
      <p>
        <strong>Your new API key.</strong> Copy it now: it is shown only once.
      </p>
      <textarea className="secret" aria-label="API key" value={apiKey} readOnly rows={3} spellCheck={false} />
      <div className="row">
        <CopyButton value={apiKey} what="key" />
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
    </section>
  );
}

/** A task's status as a coloured badge in words. */
export function StatusBadge({ status, label }: { status: string; label: string }) {
  return <span className={`badge ${taskStatusTone(status)}`}>{label}</span>;
}

/**
 * One number that matters, with its label. With `target` (an element id on the page) the tile
 * leads there: its label is a link and the whole tile is its click area. Routes live in the hash,
 * so the link scrolls instead of changing the hash.
 */
export function Stat({
  label,
  value,
  unit,
  target,
}: {
  label: string;
  value: string | number;
  unit?: string;
  target?: string;
}) {
  const go = (event: React.MouseEvent) => {
    event.preventDefault();
    const element = target ? document.getElementById(target) : null;
    element?.scrollIntoView({ block: 'start' });
    element?.focus({ preventScroll: true });
  };
  return (
    // biome-ignore lint/a11y/useSemanticElements: a value and its label, not form controls (fieldset)
    <div className={target ? 'stat linked' : 'stat'} role="group" aria-label={label}>
      <div className="stat-value">
        {value}
        {unit ? <small> {unit}</small> : null}
      </div>
      <div className="stat-label">
        {target ? (
          <a href={`#${target}`} onClick={go}>
            {label}
          </a>
        ) : (
          label
        )}
      </div>
    </div>
  );
}

/**
 * The owner's actions on a task through the agent API, one at a time: `busy` while a call runs,
 * then its outcome line (`done`) or its error. After a call succeeds `after` resets the form and
 * `onChanged` reloads the task.
 */
export function useAgentCall(agentId: string, onChanged: () => void) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const run = async (method: string, path: string, body: unknown, message: string, after: () => void) => {
    setBusy(true);
    setError(null);
    try {
      await agentApi(agentId, method, path, body);
      setDone(message);
      after();
      onChanged();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, done, setDone, run };
}

/**
 * A step that moves money asks first: `children` say what happens (naming the amount), the
 * primary button does it, the other backs out and changes nothing.
 */
export function Confirm({
  label,
  busy,
  act,
  onAct,
  back,
  onBack,
  children,
}: {
  /** The section's accessible name, e.g. "Confirm completion". */
  label: string;
  busy: boolean;
  act: string;
  onAct: () => void;
  back: string;
  onBack: () => void;
  children: React.ReactNode;
}) {
  return (
    <section className="confirm" aria-label={label}>
      {children}
      <div className="row">
        <button type="button" className="primary" disabled={busy} onClick={onAct}>
          {act}
        </button>
        <button type="button" onClick={onBack}>
          {back}
        </button>
      </div>
    </section>
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
