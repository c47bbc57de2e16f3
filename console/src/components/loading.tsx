import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api.js';

export interface Loaded<T> {
  data?: T;
  error?: ApiError | Error;
  loading: boolean;
}

/** One GET for a view; `path` null waits (e.g. for an id another reply brings). */
export function useApiGet<T>(path: string | null): Loaded<T> {
  const [state, setState] = useState<Loaded<T>>({ loading: path !== null });
  useEffect(() => {
    if (path === null) return;
    const abort = new AbortController();
    setState({ loading: true });
    api<T>(path, { signal: abort.signal }).then(
      (data) => !abort.signal.aborted && setState({ data, loading: false }),
      (error: Error) => !abort.signal.aborted && setState({ error, loading: false }),
    );
    return () => abort.abort();
  }, [path]);
  return state;
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status">
      Loading {what}…
    </p>
  );
}

/** A request that failed, said plainly (the envelope's message and code). */
export function Failure({ error, doing }: { error: Error; doing: string }) {
  const code = error instanceof ApiError ? ` (${error.code})` : '';
  return (
    <div class="failure" role="alert">
      <p>
        Could not {doing}: {error.message}
        {code}
      </p>
    </div>
  );
}
