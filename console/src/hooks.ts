import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError } from './api';
import { followRuns } from './runEvents';
import type { EvalRun } from './types';

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

export interface LiveRuns {
  /** the latest state the stream gave of each run followed (none before its first event) */
  runs: Map<string, EvalRun>;
  /** the stream could not go on */
  failure: ApiError | undefined;
}

/**
 * The runs a view shows running, followed over one events stream (GET /eval-runs/events) for as long as one of them
 * runs: the view shows each one's latest state, and `onEnded` is called when one ends (the view reads itself again,
 * for what the run's end changes: trend, totals, history). Nothing is opened while nothing runs; a new stream is opened
 * only when the set of runs shown running changes (a run started, or one ended and the view was read again).
 */
export function useLiveRuns(projectId: string | null, runIds: string[], onEnded: () => void): LiveRuns {
  const key = [...new Set(runIds)].sort().join(',');
  const [state, setState] = useState<LiveRuns & { key: string }>({ key: '', runs: new Map(), failure: undefined });
  const ended = useRef(onEnded);
  ended.current = onEnded;
  useEffect(() => {
    if (projectId === null || key === '') return;
    const mine = (s: LiveRuns & { key: string }) => (s.key === key ? s : { key, runs: new Map(), failure: undefined });
    return followRuns(projectId, key.split(','), {
      onRun: (run) => {
        setState((s) => ({ ...mine(s), runs: new Map(mine(s).runs).set(run.id, run) }));
        // each run's final state comes once (followRuns asks no more about it)
        if (run.status !== 'running' && run.status !== 'queued') ended.current();
      },
      onFailure: (failure) => setState((s) => ({ ...mine(s), failure })),
    });
  }, [projectId, key]);
  return state.key === key ? state : { runs: new Map(), failure: undefined };
}
