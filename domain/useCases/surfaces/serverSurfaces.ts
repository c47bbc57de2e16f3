import { unknownServers } from '../../evals/serverSelection.js';
import { notFound } from '../../failures.js';
import { diffSurfaces, normalizeSurface, surfaceHash, type SurfaceDiff, type SurfaceTool } from '../../mcp/surface.js';
import type { PageCursors } from '../../ports/pageCursors.js';
import type { ServerStore } from '../../ports/serverStore.js';
import type { StoredSurface, SurfaceStore, SurfaceSummary } from '../../ports/surfaceStore.js';
import type { Principal } from '../../principal.js';

/**
 * The stories on a server's tool surfaces (Runway extension): list the surfaces it showed, one in full, the diff of
 * two, and recording the one an export saw. A server outside the key's reach is 404, whether it exists or not.
 */

interface ServerRef {
  principal: Principal;
  projectId: string;
  serverId: string;
}

async function requireServer(servers: ServerStore, input: ServerRef) {
  const { projectVisible, projectId, server } = await servers.findInVisibleProject(
    input.principal,
    input.projectId,
    input.serverId,
  );
  if (!projectVisible) throw notFound('project', { projectId: input.projectId });
  if (!server) {
    const named = await servers.serversNamed(projectId!, [input.serverId]);
    throw unknownServers(projectId!, [input.serverId], named, { serverId: input.serverId });
  }
  return server;
}

interface Position {
  lastSeenAt: string;
  hash: string;
}

/** One page of a server's surfaces, the latest seen first, with the cursor of the next page. */
export function listServerSurfaces(deps: { servers: ServerStore; surfaces: SurfaceStore; cursors: PageCursors }) {
  return async function listServerSurfaces(
    input: ServerRef & { limit: number; cursor?: string },
  ): Promise<{ items: SurfaceSummary[]; nextCursor?: string }> {
    const server = await requireServer(deps.servers, input);
    const scope = `surfaces:${server.id}`;
    const after = input.cursor === undefined ? undefined : deps.cursors.decode<Position>(scope, input.cursor);
    const rows = await deps.surfaces.list(server.id, { after, limit: input.limit + 1 });
    const items = rows.slice(0, input.limit);
    const last = items.at(-1);
    return {
      items,
      ...(rows.length > input.limit && last
        ? { nextCursor: deps.cursors.encode(scope, { lastSeenAt: last.lastSeenAt.toISOString(), hash: last.hash }) }
        : {}),
    };
  };
}

async function requireSurface(surfaces: SurfaceStore, serverId: string, hash: string): Promise<StoredSurface> {
  const found = await surfaces.get(serverId, hash);
  if (!found) throw notFound('tool surface', { serverId, hash, reason: 'SURFACE_NOT_FOUND' });
  return found;
}

/** One of a server's surfaces in full. */
export function getServerSurface(deps: { servers: ServerStore; surfaces: SurfaceStore }) {
  return async function getServerSurface(input: ServerRef & { hash: string }): Promise<StoredSurface> {
    const server = await requireServer(deps.servers, input);
    return await requireSurface(deps.surfaces, server.id, input.hash);
  };
}

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

export type ListServerSurfaces = ReturnType<typeof listServerSurfaces>;
export type GetServerSurface = ReturnType<typeof getServerSurface>;
export type DiffServerSurfaces = ReturnType<typeof diffServerSurfaces>;
export type RecordExportSurface = ReturnType<typeof recordExportSurface>;
