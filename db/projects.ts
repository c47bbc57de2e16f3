import type { Principal } from '../domain/principal.js';
import type { Project } from '../domain/catalog/project.js';
import type { Db } from './connection.js';
import { newId } from '../domain/ids.js';
import { camelRow, camelRows, type Camel, type RowIsNoun, type Same } from './rows.js';

export interface ProjectRow {
  id: string;
  organization_id: string;
  name: string;
  description: string;
  icon: string;
  visibility: 'organization' | 'private';
  is_default: boolean;
  role: string;
  created_at: Date;
  updated_at: Date;
}

/** The row as the domain's Project (domain/catalog/project.ts): a column and its field go together. */
type _ProjectIsRow = RowIsNoun<Same<Camel<ProjectRow>, Project>>;

export async function createProject(
  sql: Db,
  input: {
    organizationId: string;
    name: string;
    description?: string;
    icon?: string;
    visibility?: 'organization' | 'private';
    isDefault?: boolean;
  },
) {
  const [row] = await sql<{ id: string; name: string }[]>`
    INSERT INTO projects (id, organization_id, name, description, icon, visibility, is_default)
    VALUES (${newId('prj')}, ${input.organizationId}, ${input.name}, ${input.description ?? ''}, ${input.icon ?? ''},
            ${input.visibility ?? 'organization'}, ${input.isDefault ?? false})
    RETURNING id, name`;
  return row;
}

export async function addProjectMember(
  sql: Db,
  input: { projectId: string; userId: string; role: 'owner' | 'admin' | 'editor' | 'viewer' },
) {
  await sql`
    INSERT INTO project_members (project_id, user_id, role) VALUES (${input.projectId}, ${input.userId}, ${input.role})
    ON CONFLICT (project_id, user_id) DO UPDATE SET role = EXCLUDED.role`;
}

/**
 * The access rule, in one place: a project is visible to a key when it belongs to the key's organization and
 * either is organization-wide, or the owner is an org owner/admin, or a member of the project.
 * The role is the project role when there is one, else the organization role.
 */
const accessible = (sql: Db, principal: Principal) => sql`
  p.organization_id = ${principal.organizationId}
  AND (p.visibility = 'organization' OR ${principal.orgRole} IN ('owner', 'admin') OR pm.user_id IS NOT NULL)`;

export async function listProjects(sql: Db, principal: Principal): Promise<Project[]> {
  return camelRows(
    await sql<ProjectRow[]>`
    SELECT p.*, COALESCE(pm.role, ${principal.orgRole}) AS role
    FROM projects p LEFT JOIN project_members pm ON pm.project_id = p.id AND pm.user_id = ${principal.userId}
    WHERE ${accessible(sql, principal)}
    ORDER BY p.created_at, p.id`,
  );
}

/**
 * The project `projectId` names, with the key owner's role in it, when the key may see it (no row otherwise): a
 * query to select from or nest. `default` names the organization's default project (its oldest when none is marked).
 */
export const visibleProject = (sql: Db, principal: Principal, projectId: string) => sql`
  SELECT p.*, COALESCE(pm.role, ${principal.orgRole}) AS role
  FROM projects p LEFT JOIN project_members pm ON pm.project_id = p.id AND pm.user_id = ${principal.userId}
  WHERE p.id = ${
    projectId === 'default'
      ? sql`(SELECT id FROM projects WHERE organization_id = ${principal.organizationId} ORDER BY is_default DESC, created_at, id LIMIT 1)`
      : projectId
  }
    AND ${accessible(sql, principal)}`;

/** The project when the key may see it, else undefined (the caller answers 404 either way). */
export async function findProject(sql: Db, principal: Principal, projectId: string): Promise<Project | undefined> {
  const [row] = await sql<ProjectRow[]>`${visibleProject(sql, principal, projectId)}`;
  return camelRow(row);
}
