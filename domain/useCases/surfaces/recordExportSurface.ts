import { normalizeSurface, surfaceHash, type SurfaceTool } from '../../mcp/surface.js';
import type { SurfaceStore } from '../../ports/surfaceStore.js';

/** Records the tool surface an export saw (its tools normalized, bounded and hashed); answers its hash. */
export function recordExportSurface(deps: { surfaces: SurfaceStore }) {
  return async function recordExportSurface(
    serverId: string,
    tools: readonly SurfaceTool[],
    /** the export's tool list stopped at its reply budget */
    listCut = false,
  ): Promise<string> {
    const surface = normalizeSurface(tools, undefined, { cut: listCut });
    const hash = surfaceHash(surface);
    await deps.surfaces.recordExport({ serverId, hash, surface });
    return hash;
  };
}

export type RecordExportSurface = ReturnType<typeof recordExportSurface>;
