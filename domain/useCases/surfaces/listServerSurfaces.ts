import type { PageCursors } from '../../ports/pageCursors.js';
import type { ServerStore } from '../../ports/serverStore.js';
import type { SurfaceStore, SurfaceSummary } from '../../ports/surfaceStore.js';
import { requireServer, type ServerRef } from './surfaceAccess.js';

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

export type ListServerSurfaces = ReturnType<typeof listServerSurfaces>;
