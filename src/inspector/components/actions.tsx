import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';

/**
 * Small pieces the Webhooks, Time & state and Keys views share: running a
 * control call with its failure shown in one line (role="alert"), loading a
 * value with a reload, and a destructive button that asks again in the page.
 */

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** `run(fn)`: runs one call at a time; its error (one line) stays until the next call. */
export function useAction(): { busy: boolean; error: string | null; run: (fn: () => Promise<unknown>) => Promise<boolean>; clear: () => void } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(async (fn: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
      return true;
    } catch (err) {
      setError(messageOf(err));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clear: () => setError(null) };
}

/** Loads `load()` now and whenever `deps` change; `reload()` loads again; a failure is kept as `error`. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { value: T | undefined; error: string | null; reload: () => Promise<void> } {
  const [value, setValue] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const loadRef = useRef(load);
  loadRef.current = load;
  const generation = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++generation.current;
    try {
      const next = await loadRef.current();
      if (mine !== generation.current) return;
      setValue(next);
      setError(null);
    } catch (err) {
      if (mine !== generation.current) return;
      setError(messageOf(err));
    }
  }, []);
  useEffect(
    () => {
      void reload();
    },
    // biome-ignore lint/correctness/useExhaustiveDependencies: the caller's `deps` say when to load again
    deps,
  );
  return { value, error, reload };
}

export function ErrorLine({ error }: { error: string | null | undefined }) {
  if (!error) return null;
  return (
    <p className="error one-line" role="alert" title={error}>
      {error}
    </p>
  );
}

/**
 * A destructive action: the first click shows "Confirm <what>" and "Cancel"
 * next to it, in the page (no window.confirm); only the confirmation acts.
 */
export function ConfirmButton({
  label,
  confirmLabel,
  onConfirm,
  disabled,
  ariaLabel,
}: {
  label: ReactNode;
  confirmLabel: string;
  onConfirm: () => void | Promise<unknown>;
  disabled?: boolean;
  ariaLabel?: string;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className="danger" disabled={disabled} aria-label={ariaLabel} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span className="confirm">
      <button
        type="button"
        className="danger primary-danger"
        onClick={() => {
          setAsking(false);
          void onConfirm();
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

/** A status badge: 2xx ok, 4xx warn, 5xx (and no answer) bad. */
export function StatusBadge({ status }: { status: number | null | undefined }) {
  if (status === null || status === undefined || status === 0) return <span className="badge bad">no answer</span>;
  const tone = status < 300 ? 'ok' : status < 500 ? 'warn' : 'bad';
  return <span className={`badge ${tone}`}>{status}</span>;
}

export function Panel({ title, children, actions, id }: { title: string; children: ReactNode; actions?: ReactNode; id?: string }) {
  return (
    <section className="panel" aria-labelledby={id ? `${id}-title` : undefined}>
      <header className="panel-head">
        <h2 id={id ? `${id}-title` : undefined}>{title}</h2>
        {actions ? <div className="panel-actions">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
}

/**
 * A control-plane POST must say JSON even without a body (so that no web page
 * can send it as a simple request; docs/control-plane.md): spread into the
 * options of a bodiless api.POST.
 */
export const JSON_HEADERS = { 'content-type': 'application/json' } as const;
