import { type ReactNode, useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from './api';
import { onRefresh } from './freshness';
import { closeApp } from './telegram';

export function Loading({ label }: { label?: string }) {
  const { t } = useTranslation();
  return (
    <p className="muted center" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> {label ?? t('common.loading')}
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="muted center empty">{children}</p>;
}

/**
 * A failure in a sentence the worker can act on. An API refusal is described by its kind
 * (errors.*), never with the server's raw words or status; an expired session can only be fixed
 * by opening the app again, so its button closes the app instead of trying again.
 */
export function ErrorNote({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { t } = useTranslation();
  if (!error) return null;
  const kind = error instanceof ApiError ? error.kind : null;
  if (error instanceof ApiError) console.warn(`Handoff API ${error.status}: ${error.message}`);
  const text = kind
    ? t(`errors.${kind}`)
    : error instanceof Error
      ? error.message
      : typeof error === 'string'
        ? error
        : t('errors.unknown');
  const retry = kind === 'session' ? null : onRetry && kind !== 'invalid' ? onRetry : null;
  return (
    <div className="error" role="alert">
      <span>{text}</span>
      {kind === 'session' ? (
        <button type="button" className="link" onClick={() => closeApp()}>
          {t('errors.closeApp')}
        </button>
      ) : retry ? (
        <button type="button" className="link" onClick={retry}>
          {t('common.tryAgain')}
        </button>
      ) : null}
    </div>
  );
}

/** A Telegram-style list section: a small header above a rounded block of cells, an optional footer. */
export function Section({
  title,
  children,
  footer,
  plain,
}: {
  title: string;
  children: ReactNode;
  footer?: ReactNode;
  /** Content that is not a list of cells (text, a form): padded inside the block. */
  plain?: boolean;
}) {
  return (
    <section className="group" aria-label={title}>
      <h2 className="group-title">{title}</h2>
      <div className={plain ? 'group-body padded' : 'group-body'}>{children}</div>
      {footer ? <p className="group-footer">{footer}</p> : null}
    </section>
  );
}

/** One line of facts in a section: a label and its value. */
export function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="cell fact">
      <span className="cell-label">{label}</span>
      <span className="cell-value">{children}</span>
    </div>
  );
}

/**
 * Loads on mount and whenever `key` changes (and on `reload`), keeping the error instead of a blank
 * screen. It also re-reads quietly whenever the screens should be fresh (freshness.ts): no
 * spinner, and a failed quiet re-read keeps what is shown rather than replacing it by an error.
 * An answer that arrives after a newer read started is dropped (a slow poll must not overwrite
 * what the worker's own action just loaded).
 */
export function useLoad<T>(load: () => Promise<T>, key = '') {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const latest = useRef(load);
  latest.current = load;
  const generation = useRef(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` names what the load depends on
  const run = useCallback(() => {
    const mine = ++generation.current;
    setState((s) => ({ ...s, loading: true, error: undefined }));
    latest.current().then(
      (data) => mine === generation.current && setState({ data, loading: false }),
      (error: unknown) => mine === generation.current && setState({ error, loading: false }),
    );
  }, [key]);
  useEffect(run, [run]);
  useEffect(
    () =>
      onRefresh(() => {
        const mine = ++generation.current;
        latest.current().then(
          (data) => mine === generation.current && setState({ data, loading: false }),
          () => undefined,
        );
      }),
    [],
  );
  return {
    ...state,
    reload: run,
    set: (data: T) => {
      generation.current += 1;
      setState({ data, loading: false });
    },
  };
}
