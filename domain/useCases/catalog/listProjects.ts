import type { Project } from '../../catalog/project.js';
import type { CatalogStore } from '../../ports/catalogStore.js';
import type { Principal } from '../../principal.js';

/** The projects the key can see (domain/access has the rule), oldest first. */
export function listProjects(deps: { catalog: CatalogStore }) {
  return async function listProjects(input: {
    principal: Principal;
    /** only this organization's: a key acts in one, so another one (or a value that names none) lists nothing */
    organizationId?: string;
  }): Promise<Project[]> {
    const { principal, organizationId } = input;
    if (organizationId !== undefined && organizationId !== principal.organizationId) return [];
    return await deps.catalog.projects(principal);
  };
}

export type ListProjects = ReturnType<typeof listProjects>;
