import type { Db } from '../../db/connection.js';
import { findProject } from '../../db/projects.js';
import type { Project } from '../catalog/project.js';
import { notFound } from '../failures.js';
import type { Principal } from '../principal.js';

/**
 * The project a request names, when the key's owner may see it. Any other case, existing or not, is the same
 * 404 so that ids in other organizations reveal nothing. `default` is the organization's default project.
 */
export async function requireProject(sql: Db, principal: Principal, projectId: string): Promise<Project> {
  const project = await findProject(sql, principal, projectId);
  if (!project) throw notFound('project', { projectId });
  return project;
}
