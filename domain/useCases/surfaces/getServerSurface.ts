import type { ServerStore } from '../../ports/serverStore.js';
import type { StoredSurface, SurfaceStore } from '../../ports/surfaceStore.js';
import { requireServer, requireSurface, type ServerRef } from './surfaceAccess.js';

/** One of a server's surfaces in full. */
export function getServerSurface(deps: { servers: ServerStore; surfaces: SurfaceStore }) {
  return async function getServerSurface(input: ServerRef & { hash: string }): Promise<StoredSurface> {
    const server = await requireServer(deps.servers, input);
    return await requireSurface(deps.surfaces, server.id, input.hash);
  };
}

export type GetServerSurface = ReturnType<typeof getServerSurface>;
