import type { ToolSurface } from '../mcp/surface.js';

/**
 * Where the tool surfaces servers showed are kept (db/toolSurfaces.ts): one row per server and surface hash, and
 * which surfaces each eval run's listings saw. Declared here for the surface stories (domain/useCases/surfaces).
 */

/** One surface a server showed, without its tools: for lists. */
export interface SurfaceSummary {
  serverId: string;
  hash: string;
  toolCount: number;
  truncated: boolean;
  firstSeenAt: Date;
  lastSeenAt: Date;
  /** exports that saw it */
  exportCount: number;
  /** eval runs whose listings saw it */
  runCount: number;
  /** a few of those runs, the latest first */
  recentRunIds: string[];
}

export interface StoredSurface extends SurfaceSummary {
  surface: ToolSurface;
}

/** A surface one run saw of one of its servers. */
export interface RunSurface {
  runId: string;
  serverId: string;
  serverName: string;
  hash: string;
  /** the run's tool listings (one per batch that listed) that saw it */
  listings: number;
  firstSeenAt: Date;
  lastSeenAt: Date;
}

/** A surface as it is recorded: normalized and hashed once per listing (domain/mcp/surface.ts). */
export interface SurfaceSighting {
  serverId: string;
  hash: string;
  surface: ToolSurface;
}

export interface SurfaceStore {
  /** An export saw `sighting`: kept (or its last sight and export count moved on). */
  recordExport(sighting: SurfaceSighting): Promise<void>;
  /** A listing of run `runId` saw `sighting`. */
  recordRunListing(runId: string, sighting: SurfaceSighting): Promise<void>;
  /** A server's surfaces, the latest seen first, after the position of a page's last one. */
  list(
    serverId: string,
    page: { after?: { lastSeenAt: string; hash: string }; limit: number },
  ): Promise<SurfaceSummary[]>;
  get(serverId: string, hash: string): Promise<StoredSurface | undefined>;
  /** The surfaces the runs saw, by run, server and first sight. */
  runSurfaces(runIds: string[]): Promise<RunSurface[]>;
}

/** The tools one case of a run expected or called, over its iterations (for drift in comparisons). */
export interface CaseTools {
  caseId: string | null;
  title: string;
  query: string;
  tools: string[];
}

/** What a comparison of two runs reads of their surfaces. */
export interface DriftReads extends Pick<SurfaceStore, 'runSurfaces' | 'get'> {
  caseTools(runId: string): Promise<CaseTools[]>;
}
