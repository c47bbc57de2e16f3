import type postgres from 'postgres';
import type { ToolSurface } from '../domain/mcp/surface.js';
import type {
  RunSurface,
  StoredSurface,
  SurfaceSighting,
  SurfaceStore,
  SurfaceSummary,
  CaseTools,
  DriftReads,
} from '../domain/ports/surfaceStore.js';
import type { Db } from './connection.js';

/** Runs named with a surface in a list, at most. */
const RECENT_RUNS = 5;

interface SummaryRow {
  server_id: string;
  hash: string;
  tool_count: number;
  truncated: boolean;
  first_seen_at: Date;
  last_seen_at: Date;
  export_count: number;
  run_count: number;
  recent_run_ids: string[] | null;
}

const toSummary = (row: SummaryRow): SurfaceSummary => ({
  serverId: row.server_id,
  hash: row.hash,
  toolCount: row.tool_count,
  truncated: row.truncated,
  firstSeenAt: row.first_seen_at,
  lastSeenAt: row.last_seen_at,
  exportCount: row.export_count,
  runCount: row.run_count,
  recentRunIds: row.recent_run_ids ?? [],
});

/** Keeps the surface once per server and hash; a sighting of a kept one moves its last sight on. */
async function upsertSurface(sql: Db, sighting: SurfaceSighting, exported: boolean): Promise<void> {
  const { serverId, hash, surface } = sighting;
  await sql`
    INSERT INTO tool_surfaces (server_id, hash, surface, tool_count, truncated, export_count)
    VALUES (${serverId}, ${hash}, ${sql.json(surface as never)}, ${surface.tools.length},
            ${surface.truncated !== undefined}, ${exported ? 1 : 0})
    ON CONFLICT (server_id, hash) DO UPDATE
      SET last_seen_at = greatest(tool_surfaces.last_seen_at, now()),
          export_count = tool_surfaces.export_count + ${exported ? 1 : 0}`;
}

/** The tool surfaces' storage (domain/ports/surfaceStore.ts). */
export function createSurfaceStore(sql: Db): SurfaceStore & DriftReads {
  /** The order of a list, to the millisecond a page cursor holds. */
  const SEEN = sql`date_trunc('milliseconds', s.last_seen_at)`;
  const summaries = (where: postgres.PendingQuery<postgres.Row[]>, limit: number) => sql<SummaryRow[]>`
    SELECT s.server_id, s.hash, s.tool_count, s.truncated, s.first_seen_at, s.last_seen_at, s.export_count,
           (SELECT count(*)::int FROM run_surfaces r WHERE r.server_id = s.server_id AND r.hash = s.hash) AS run_count,
           (SELECT array_agg(run_id ORDER BY last_seen_at DESC, run_id) FROM (
              SELECT r.run_id, r.last_seen_at FROM run_surfaces r
              WHERE r.server_id = s.server_id AND r.hash = s.hash
              ORDER BY r.last_seen_at DESC, r.run_id LIMIT ${RECENT_RUNS}) recent) AS recent_run_ids
    FROM tool_surfaces s
    WHERE ${where}
    ORDER BY ${SEEN} DESC, s.hash
    LIMIT ${limit}`;
  return {
    recordExport: (sighting) => upsertSurface(sql, sighting, true),

    async recordRunListing(runId, sighting) {
      await upsertSurface(sql, sighting, false);
      await sql`
        INSERT INTO run_surfaces (run_id, server_id, hash)
        VALUES (${runId}, ${sighting.serverId}, ${sighting.hash})
        ON CONFLICT (run_id, server_id, hash) DO UPDATE
          SET listings = run_surfaces.listings + 1, last_seen_at = greatest(run_surfaces.last_seen_at, now())`;
    },

    async list(serverId, page) {
      const where = page.after
        ? sql`s.server_id = ${serverId} AND (${SEEN} < ${page.after.lastSeenAt}::timestamptz
              OR (${SEEN} = ${page.after.lastSeenAt}::timestamptz AND s.hash > ${page.after.hash}))`
        : sql`s.server_id = ${serverId}`;
      return (await summaries(where, page.limit)).map(toSummary);
    },

    async get(serverId, hash) {
      const [row] = await sql<(SummaryRow & { surface: ToolSurface })[]>`
        SELECT s.*,
               (SELECT count(*)::int FROM run_surfaces r WHERE r.server_id = s.server_id AND r.hash = s.hash) AS run_count,
               (SELECT array_agg(run_id ORDER BY last_seen_at DESC, run_id) FROM (
                  SELECT r.run_id, r.last_seen_at FROM run_surfaces r
                  WHERE r.server_id = s.server_id AND r.hash = s.hash
                  ORDER BY r.last_seen_at DESC, r.run_id LIMIT ${RECENT_RUNS}) recent) AS recent_run_ids
        FROM tool_surfaces s WHERE s.server_id = ${serverId} AND s.hash = ${hash}`;
      return row ? ({ ...toSummary(row), surface: row.surface } satisfies StoredSurface) : undefined;
    },

    async runSurfaces(runIds) {
      if (runIds.length === 0) return [];
      const rows = await sql<
        {
          run_id: string;
          server_id: string;
          server_name: string | null;
          hash: string;
          listings: number;
          first_seen_at: Date;
          last_seen_at: Date;
        }[]
      >`
        SELECT r.run_id, r.server_id, sv.name AS server_name, r.hash, r.listings, r.first_seen_at, r.last_seen_at
        FROM run_surfaces r LEFT JOIN servers sv ON sv.id = r.server_id
        WHERE r.run_id IN ${sql(runIds)}
        ORDER BY r.run_id, r.server_id, r.first_seen_at, r.hash`;
      return rows.map((row): RunSurface => ({
        runId: row.run_id,
        serverId: row.server_id,
        serverName: row.server_name ?? row.server_id,
        hash: row.hash,
        listings: row.listings,
        firstSeenAt: row.first_seen_at,
        lastSeenAt: row.last_seen_at,
      }));
    },

    async caseTools(runId) {
      const rows = await sql<{ case_id: string | null; title: string; query: string; tools: string[] }[]>`
        SELECT case_id, title, query, array_agg(DISTINCT tool ORDER BY tool) AS tools
        FROM (
          SELECT i.case_id, i.title, i.query, call->>'toolName' AS tool
          FROM eval_iterations i,
               jsonb_array_elements(CASE WHEN jsonb_typeof(i.expected_tool_calls) = 'array'
                                         THEN i.expected_tool_calls ELSE '[]'::jsonb END) call
          WHERE i.run_id = ${runId}
          UNION ALL
          SELECT i.case_id, i.title, i.query, call->>'toolName' AS tool
          FROM eval_iterations i,
               jsonb_array_elements(CASE WHEN jsonb_typeof(i.actual_tool_calls) = 'array'
                                         THEN i.actual_tool_calls ELSE '[]'::jsonb END) call
          WHERE i.run_id = ${runId}
        ) calls
        WHERE tool IS NOT NULL
        GROUP BY case_id, title, query`;
      return rows.map((row): CaseTools => ({
        caseId: row.case_id,
        title: row.title,
        query: row.query,
        tools: row.tools,
      }));
    },
  };
}
