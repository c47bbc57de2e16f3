import type { z } from 'zod';
import type { compareDriftSchema } from '../../../api/schemas/surfaces';

type Drift = z.infer<typeof compareDriftSchema>;

/**
 * The compare view's drift banner: the servers whose tool surface differs between the two runs, one line per change
 * ("the `search` tool's description changed"), so a regression is read with the tool change beside it.
 */
export function DriftBanner({ drift }: { drift?: Drift }) {
  if (!drift?.changed) return null;
  return (
    <aside class="drift-banner" role="note" aria-labelledby="drift-heading">
      <h2 id="drift-heading">The tools changed between the runs</h2>
      {drift.servers.map((server) => (
        <div key={server.serverId} class="drift-server">
          <p>
            <strong>{server.serverName}</strong>{' '}
            <small>
              <code>{server.from?.slice(0, 12) ?? '–'}</code> → <code>{server.to?.slice(0, 12) ?? '–'}</code>
            </small>
          </p>
          <ul>
            {server.summary.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </div>
      ))}
    </aside>
  );
}

/** A case's mark: the tools it expected or called whose definition changed between the runs. */
export function CaseDriftMark({ tools }: { tools?: string[] }) {
  if (!tools || tools.length === 0) return null;
  return (
    <span class="badge badge-drift" title="a tool this case uses changed between the runs">
      {' '}
      tool changed: {tools.join(', ')}
    </span>
  );
}
