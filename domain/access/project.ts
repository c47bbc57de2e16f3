import type { Db } from '../../db/connection.js';
import { findProject } from '../../db/projects.js';
import type { Project } from '../catalog/project.js';
import type { Principal } from '../principal.js';
import { requireVisibleProject } from './visibleProject.js';

/** The project a request names, when the key's owner may see it (requireVisibleProject), read from the projects table. */
export function requireProject(sql: Db, principal: Principal, projectId: string): Promise<Project> {
  return requireVisibleProject({ visibleProject: (owner, id) => findProject(sql, owner, id) }, principal, projectId);
}
