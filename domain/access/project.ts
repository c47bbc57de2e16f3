import type { Project } from '../catalog/project.js';
import type { Principal } from '../principal.js';
import { requireVisibleProject, type ProjectLookup } from './visibleProject.js';

/**
 * The project a request names, when the key's owner may see it (requireVisibleProject), read through the store the
 * story was given (every store of the domain's ports can tell the projects a key may see).
 */
export function requireProject(projects: ProjectLookup, principal: Principal, projectId: string): Promise<Project> {
  return requireVisibleProject(projects, principal, projectId);
}
