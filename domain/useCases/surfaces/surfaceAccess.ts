import { notFound } from '../../failures.js';
import type { StoredSurface, SurfaceStore } from '../../ports/surfaceStore.js';
import type { Principal } from '../../principal.js';

/**
 * What the stories on a server's tool surfaces share: the server, found through the project access rule (one outside
 * the key's reach is 404, whether it exists or not), and a surface it showed (404 SURFACE_NOT_FOUND otherwise).
 */

export interface ServerRef {
  principal: Principal;
  projectId: string;
  serverId: string;
}

export { requireServer } from '../../access/server.js';

export async function requireSurface(surfaces: SurfaceStore, serverId: string, hash: string): Promise<StoredSurface> {
  const found = await surfaces.get(serverId, hash);
  if (!found) throw notFound('tool surface', { serverId, hash, reason: 'SURFACE_NOT_FOUND' });
  return found;
}
