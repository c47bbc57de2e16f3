import { requireProject } from '../../access/project.js';
import { tunnelsNotOffered } from '../../catalog/tunnels.js';
import type { CatalogStore } from '../../ports/catalogStore.js';
import type { Principal } from '../../principal.js';

/**
 * A relay tunnel for a project's server: not offered (domain/catalog/tunnels.ts says why), once the project is
 * found, so the real product's clients learn why after the same checks as any request (another project is 404).
 */
export function createTunnel(deps: { catalog: CatalogStore }) {
  return async function createTunnel(input: { principal: Principal; projectId: string }): Promise<never> {
    await requireProject(deps.catalog, input.principal, input.projectId);
    throw tunnelsNotOffered();
  };
}

export type CreateTunnel = ReturnType<typeof createTunnel>;
