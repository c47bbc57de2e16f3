import { describeDiff, diffSurfaces, driftedTools, type SurfaceDiff } from '../../mcp/surface.js';
import type { CaseTools, DriftReads, RunSurface } from '../../ports/surfaceStore.js';

/**
 * Drift between two runs: the servers that showed the current run another tool surface than the base run, what
 * changed (domain/mcp/surface.ts), and, per case, the tools it expected or called that changed, so a regression comes
 * with "and the `search` tool's description changed between the runs".
 */

export interface ServerDrift {
  serverId: string;
  serverName: string;
  from: string | null;
  to: string | null;
  diff: SurfaceDiff;
  summary: string[];
}

export interface Drift {
  changed: boolean;
  servers: ServerDrift[];
}

/** The surface a run last showed of each server (its latest sight). */
function lastSeen(seen: readonly RunSurface[]): Map<string, RunSurface> {
  const last = new Map<string, RunSurface>();
  for (const row of seen) {
    const kept = last.get(row.serverId);
    if (!kept || row.lastSeenAt.getTime() > kept.lastSeenAt.getTime()) last.set(row.serverId, row);
  }
  return last;
}

/**
 * The drift from run `baseRunId` to `currentRunId`, over the servers both runs listed; undefined when either run
 * recorded no surface (runs from before surfaces were recorded, ingested runs, re-grades).
 */
export async function runDrift(
  reads: DriftReads,
  baseRunId: string,
  currentRunId: string,
): Promise<
  { drift: Drift; caseDrift: (c: { caseId: string | null; title: string; query: string }) => string[] } | undefined
> {
  const seen = await reads.runSurfaces([baseRunId, currentRunId]);
  const base = lastSeen(seen.filter((s) => s.runId === baseRunId));
  const current = lastSeen(seen.filter((s) => s.runId === currentRunId));
  if (base.size === 0 || current.size === 0) return undefined;
  const servers: ServerDrift[] = [];
  for (const [serverId, to] of current) {
    const from = base.get(serverId);
    if (!from || from.hash === to.hash) continue;
    const [a, b] = await Promise.all([reads.get(serverId, from.hash), reads.get(serverId, to.hash)]);
    if (!a || !b) continue;
    const diff = diffSurfaces(a.surface, b.surface);
    servers.push({
      serverId,
      serverName: to.serverName,
      from: from.hash,
      to: to.hash,
      diff,
      summary: describeDiff(diff),
    });
  }
  const drift: Drift = { changed: servers.length > 0, servers };
  if (!drift.changed) return { drift, caseDrift: () => [] };
  const drifted = new Set(servers.flatMap((s) => [...driftedTools(s.diff)]));
  const [baseTools, currentTools] = await Promise.all([reads.caseTools(baseRunId), reads.caseTools(currentRunId)]);
  const rows = [...baseTools, ...currentTools];
  const caseDrift = (c: { caseId: string | null; title: string; query: string }) => {
    const mine = rows.filter((row: CaseTools) =>
      c.caseId !== null ? row.caseId === c.caseId : row.title === c.title && row.query === c.query,
    );
    return [...new Set(mine.flatMap((row) => row.tools))].filter((tool) => drifted.has(tool)).sort();
  };
  return { drift, caseDrift };
}

/** The verdict's reason, with the drift said after it: "... — and the `search` tool's description changed". */
export function verdictWithDrift(reason: string, drift: Drift): string {
  if (!drift.changed) return reason;
  const lines = drift.servers.flatMap((s) => s.summary);
  const shown = lines.slice(0, 3).join('; ');
  const more = lines.length > 3 ? `; and ${lines.length - 3} more changes` : '';
  return `${reason} — and between the runs: ${shown}${more}`;
}
