import { json } from './figures';

/** Any JSON value, indented, in a scrollable block. */
export function JsonView({ value, label }: { value: unknown; label?: string }) {
  return (
    <pre class="json" aria-label={label} tabIndex={0}>
      <code>{json(value)}</code>
    </pre>
  );
}

/**
 * A tool call's arguments, one key per line; the keys in `marked` (arguments that did not match the expectation)
 * are highlighted with <mark> and say so to a screen reader.
 */
export function ArgumentsView({ args, marked = [] }: { args: unknown; marked?: string[] }) {
  if (args === undefined) return <p class="muted">any arguments</p>;
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return <JsonView value={args} />;
  const entries = Object.entries(args as Record<string, unknown>);
  const missingKeys = marked.filter((key) => !(key in (args as object)));
  if (entries.length === 0 && missingKeys.length === 0) return <p class="muted">no arguments</p>;
  return (
    <ul class="arguments">
      {entries.map(([key, value]) => {
        const text = (
          <>
            <code class="argument-key">{key}</code>: <code class="argument-value">{JSON.stringify(value)}</code>
          </>
        );
        return (
          <li key={key}>
            {marked.includes(key) ? (
              <mark class="mismatch" data-argument={key}>
                <span class="visually-hidden">Mismatched argument: </span>
                {text}
              </mark>
            ) : (
              text
            )}
          </li>
        );
      })}
      {missingKeys.map((key) => (
        <li key={`missing:${key}`}>
          <mark class="mismatch" data-argument={key}>
            <span class="visually-hidden">Mismatched argument: </span>
            <code class="argument-key">{key}</code>: <em>absent</em>
          </mark>
        </li>
      ))}
    </ul>
  );
}
