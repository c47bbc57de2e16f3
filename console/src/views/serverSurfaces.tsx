import { useState } from 'preact/hooks';
import type { z } from 'zod';
import type { surfaceDiffSchema, surfaceSummarySchema } from '../../../api/schemas/surfaces';
import { api } from '../api';
import { ErrorMessage, Loading } from '../components/feedback';
import { useApi } from '../hooks';
import type { Page } from '../types';

type Summary = z.infer<typeof surfaceSummarySchema>;
type Diff = z.infer<typeof surfaceDiffSchema>;

const short = (hash: string) => hash.slice(0, 12);
const when = (ms: number) => new Date(ms).toLocaleString();
const shown = (value: unknown) => (value === undefined ? '(none)' : JSON.stringify(value));

/**
 * A server's "Tool surfaces" panel: the distinct tool surfaces eval runs and exports saw (first and last seen, tool
 * count), and the diff of two picked from the list (tools added, removed, and changed field by field). It reads what
 * Runway recorded: nothing talks to the server.
 */
export function ToolSurfacesPanel({ base, serverName }: { base: string; serverName: string }) {
  const [open, setOpen] = useState(false);
  return (
    <div class="tool-surfaces">
      <button
        type="button"
        aria-expanded={open}
        aria-label={`Tool surfaces of ${serverName}`}
        onClick={() => setOpen(!open)}
      >
        Tool surfaces
      </button>
      {open && <SurfaceList base={base} serverName={serverName} />}
    </div>
  );
}

function SurfaceList({ base, serverName }: { base: string; serverName: string }) {
  const list = useApi<Page<Summary>>(`${base}/surfaces?limit=50`);
  const [from, setFrom] = useState<string>();
  const [to, setTo] = useState<string>();
  const [diff, setDiff] = useState<Diff>();
  const [error, setError] = useState<Error>();
  const [busy, setBusy] = useState(false);
  if (list.error) return <ErrorMessage error={list.error} action="Could not list the tool surfaces" />;
  if (!list.data) return <Loading what="Loading the tool surfaces" />;
  const items = list.data.items;
  if (items.length === 0)
    return <p class="muted">No tool surface recorded for {serverName} yet: eval runs and exports record one.</p>;
  const compare = async () => {
    if (!from || !to) return;
    setBusy(true);
    setError(undefined);
    try {
      setDiff(await api<Diff>(`${base}/surfaces/diff?from=${from}&to=${to}`));
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="surfaces" aria-label={`Tool surfaces of ${serverName}`}>
      <div class="table-wrap">
        <table class="surface-list">
          <thead>
            <tr>
              <th scope="col">Surface</th>
              <th scope="col">Tools</th>
              <th scope="col">First seen</th>
              <th scope="col">Last seen</th>
              <th scope="col">Runs</th>
              <th scope="col">Exports</th>
              <th scope="col">From</th>
              <th scope="col">To</th>
            </tr>
          </thead>
          <tbody>
            {items.map((s) => (
              <tr key={s.hash}>
                <th scope="row">
                  <code title={s.hash}>{short(s.hash)}</code>
                </th>
                <td>
                  {s.toolCount}
                  {s.truncated && ' (truncated)'}
                </td>
                <td>{when(s.firstSeenAt)}</td>
                <td>{when(s.lastSeenAt)}</td>
                <td>{s.runCount}</td>
                <td>{s.exportCount}</td>
                <td>
                  <input
                    type="radio"
                    name={`${base}-from`}
                    aria-label={`From ${short(s.hash)}`}
                    checked={from === s.hash}
                    onChange={() => setFrom(s.hash)}
                  />
                </td>
                <td>
                  <input
                    type="radio"
                    name={`${base}-to`}
                    aria-label={`To ${short(s.hash)}`}
                    checked={to === s.hash}
                    onChange={() => setTo(s.hash)}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <button type="button" disabled={!from || !to || busy} onClick={() => void compare()}>
        {busy ? 'Comparing…' : 'Show the diff'}
      </button>
      {error && <ErrorMessage error={error} action="Could not diff the surfaces" />}
      {diff && <SurfaceDiffView diff={diff} />}
    </section>
  );
}

function SurfaceDiffView({ diff: reply }: { diff: Diff }) {
  const { added, removed, changed } = reply.diff;
  return (
    <div class="surface-diff" role="region" aria-label="Surface diff">
      <p>
        <code>{short(reply.from)}</code> → <code>{short(reply.to)}</code>
      </p>
      {added.length + removed.length + changed.length === 0 && <p>No change.</p>}
      {added.length > 0 && (
        <p>
          Added:{' '}
          {added.map((name) => (
            <code key={name}>{name} </code>
          ))}
        </p>
      )}
      {removed.length > 0 && (
        <p>
          Removed:{' '}
          {removed.map((name) => (
            <code key={name}>{name} </code>
          ))}
        </p>
      )}
      {changed.map((tool) => (
        <div key={tool.name} class="surface-tool-change">
          <h4>
            Changed: <code>{tool.name}</code>
          </h4>
          <table>
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">Before</th>
                <th scope="col">After</th>
              </tr>
            </thead>
            <tbody>
              {tool.fields.map((f, i) => (
                <tr key={`${f.field}${f.path ?? ''}/${i}`}>
                  <th scope="row">
                    {f.field}
                    {f.path && <code>{f.path}</code>}
                  </th>
                  <td>
                    <code>{shown(f.before)}</code>
                  </td>
                  <td>
                    <code>{shown(f.after)}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {tool.omittedChanges ? <p class="muted">{tool.omittedChanges} more changes left out.</p> : null}
        </div>
      ))}
    </div>
  );
}
