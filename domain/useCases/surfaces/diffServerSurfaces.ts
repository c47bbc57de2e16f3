import { diffSurfaces, type SurfaceDiff } from '../../mcp/surface.js';
import type { ServerStore } from '../../ports/serverStore.js';
import type { SurfaceStore } from '../../ports/surfaceStore.js';
import { requireServer, requireSurface, type ServerRef } from './surfaceAccess.js';

/** What changed from one of a server's surfaces to another: tools added, removed, changed field by field. */
export function diffServerSurfaces(deps: { servers: ServerStore; surfaces: SurfaceStore }) {
  return async function diffServerSurfaces(
    input: ServerRef & { from: string; to: string },
  ): Promise<{ serverId: string; from: string; to: string; diff: SurfaceDiff }> {
    const server = await requireServer(deps.servers, input);
    const [from, to] = await Promise.all([
      requireSurface(deps.surfaces, server.id, input.from),
      requireSurface(deps.surfaces, server.id, input.to),
    ]);
    return { serverId: server.id, from: from.hash, to: to.hash, diff: diffSurfaces(from.surface, to.surface) };
  };
}

export type DiffServerSurfaces = ReturnType<typeof diffServerSurfaces>;
