import { ApiError } from '../api';

/** While a view's request is on its way. */
export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p class="muted" role="status" aria-live="polite">
      {what}…
    </p>
  );
}

/** A failed request, in the API's words (its code and message), next to what it was for. */
export function ErrorMessage({ error, action }: { error: Error | undefined; action?: string }) {
  if (!error) return null;
  const code = error instanceof ApiError ? error.code : undefined;
  return (
    <p class="error" role="alert">
      {action ? `${action}: ` : ''}
      {error.message}
      {code ? <span class="code"> ({code})</span> : null}
    </p>
  );
}
