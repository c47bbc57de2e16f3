import type { Project } from '../catalog/project.js';
import { notFound } from '../failures.js';
import type { Principal } from '../principal.js';

/** Whatever can tell the projects a key may see: the run store (domain/ports/runStore.ts), or the projects table. */
export interface ProjectLookup {
  /** The project by id (`default`: the organization's default project) when the key may see it; undefined otherwise. */
  visibleProject(principal: Principal, projectId: string): Promise<Project | undefined>;
}

/**
 * The project a request names, when the key's owner may see it. Any other case, existing or not, is the same
 * 404 so that ids in other organizations reveal nothing.
 */
export async function requireVisibleProject(
  projects: ProjectLookup,
  principal: Principal,
  projectId: string,
): Promise<Project> {
  const project = await projects.visibleProject(principal, projectId);
  if (!project) throw notFound('project', { projectId });
  return project;
}
