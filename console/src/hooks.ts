import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiError } from './api';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | Error | undefined;
  loading: boolean;
  /** asks again, past the cache (after a change the view made, or a "Reload" button) */
  reload(): void;
}

/** One GET for a view (`path` null: nothing yet); the reply of the last path asked wins. */
export function useApi<T>(path: string | null): Loaded<T> {
  const [state, setState] = useState<{ path: string | null; data?: T; error?: Error }>({ path: null });
  const [round, setRound] = useState(0);
  useEffect(() => {
    if (path === null) return;
    const controller = new AbortController();
    api<T>(path, { signal: controller.signal, fresh: round > 0 }).then(
      (data) => setState({ path, data }),
      (error: Error) => {
        if (!controller.signal.aborted) setState({ path, error });
      },
    );
    return () => controller.abort();
  }, [path, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  const current = state.path === path;
  return {
    data: current ? state.data : undefined,
    error: current ? state.error : undefined,
    loading: path !== null && (!current || (state.data === undefined && state.error === undefined)),
    reload,
  };
}

/** The page's title, restored when the view goes. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = title ? `${title} · Runway console` : 'Runway console';
  }, [title]);
}

export interface Action<A extends unknown[]> {
  /** runs the action; true when it succeeded */
  run(...args: A): Promise<boolean>;
  busy: boolean;
  /** the last failure (the API's error envelope), shown next to the form */
  error: Error | undefined;
  clear(): void;
}

/** A form's submission: busy while it runs, its error kept for the form to show. */
export function useAction<A extends unknown[]>(action: (...args: A) => Promise<unknown>): Action<A> {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | undefined>(undefined);
  const run = async (...args: A) => {
    setBusy(true);
    setError(undefined);
    try {
      await action(...args);
      return true;
    } catch (e) {
      setError(e as Error);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, error, clear: () => setError(undefined) };
}
