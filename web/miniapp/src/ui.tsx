import { type ReactNode, useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from './api';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="muted center" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> {label}
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="muted center empty">{children}</p>;
}

export function ErrorNote({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  if (!error) return null;
  const text = error instanceof ApiError || error instanceof Error ? error.message : String(error);
  return (
    <div className="error" role="alert">
      <span>{text}</span>
      {onRetry ? (
        <button type="button" className="link" onClick={onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

export function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="section" aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

/** Loads on mount and whenever `key` changes (and on `reload`), keeping the error instead of a blank screen. */
export function useLoad<T>(load: () => Promise<T>, key = '') {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const latest = useRef(load);
  latest.current = load;
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` names what the load depends on
  const run = useCallback(() => {
    setState((s) => ({ ...s, loading: true, error: undefined }));
    latest.current().then(
      (data) => setState({ data, loading: false }),
      (error: unknown) => setState({ error, loading: false }),
    );
  }, [key]);
  useEffect(run, [run]);
  return { ...state, reload: run, set: (data: T) => setState({ data, loading: false }) };
}
