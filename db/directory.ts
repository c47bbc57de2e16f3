import type { Db } from './connection.js';
import { camelRow, camelRows, type Camel } from './rows.js';

/*
 * What the operator CLI (cli/admin.ts) looks up and lists: organizations, users, memberships, projects, servers
 * and API keys across the whole database. The API's reads are scoped to a key instead (projects.ts, servers.ts).
 * Never a secret: keys are listed by their prefix, servers without their env, headers or client secret.
 */

interface OrganizationEntryRow {
  id: string;
  name: string;
  members: number;
  projects: number;
  created_at: Date;
}

export type OrganizationEntry = Camel<OrganizationEntryRow>;

interface UserEntryRow {
  id: string;
  email: string;
  name: string;
  /** the role in the organization the list was filtered by */
  role: string | null;
  created_at: Date;
}

export type UserEntry = Camel<UserEntryRow>;

interface ProjectEntryRow {
  id: string;
  organization_id: string;
  name: string;
  visibility: string;
  is_default: boolean;
  created_at: Date;
}

export type ProjectEntry = Camel<ProjectEntryRow>;

interface ServerEntryRow {
  id: string;
  project_id: string;
  name: string;
  transport_type: string;
  enabled: boolean;
  url: string | null;
  command: string | null;
  created_at: Date;
}

export type ServerEntry = Camel<ServerEntryRow>;

interface KeyEntryRow {
  id: string;
  name: string;
  key_prefix: string;
  organization_id: string | null;
  user_id: string;
  user_email: string;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
  /** the key's owner is still a member of the key's organization (else the key cannot act: "no longer bound") */
  bound: boolean;
}

export type KeyEntry = Camel<KeyEntryRow>;

export async function findOrganization(sql: Db, id: string): Promise<{ id: string; name: string } | undefined> {
  const [row] = await sql<{ id: string; name: string }[]>`SELECT id, name FROM organizations WHERE id = ${id}`;
  return row;
}

export async function findUser(
  sql: Db,
  ref: { id: string } | { email: string },
): Promise<{ id: string; email: string; name: string } | undefined> {
  const [row] = await sql<{ id: string; email: string; name: string }[]>`
    SELECT id, email, name FROM users WHERE ${'id' in ref ? sql`id = ${ref.id}` : sql`email = ${ref.email}`}`;
  return row;
}

export async function findMembership(
  sql: Db,
  organizationId: string,
  userId: string,
): Promise<{ role: string } | undefined> {
  const [row] = await sql<
    { role: string }[]
  >`SELECT role FROM memberships WHERE organization_id = ${organizationId} AND user_id = ${userId}`;
  return row;
}

export async function findProjectEntry(sql: Db, id: string): Promise<ProjectEntry | undefined> {
  const [row] = await sql<
    ProjectEntryRow[]
  >`SELECT id, organization_id, name, visibility, is_default, created_at FROM projects WHERE id = ${id}`;
  return camelRow(row);
}

/** The organization's default project, if it marked one. */
export async function findDefaultProject(sql: Db, organizationId: string): Promise<ProjectEntry | undefined> {
  const [row] = await sql<ProjectEntryRow[]>`
    SELECT id, organization_id, name, visibility, is_default, created_at FROM projects WHERE organization_id = ${organizationId} AND is_default`;
  return camelRow(row);
}

export async function listOrganizations(sql: Db): Promise<OrganizationEntry[]> {
  return camelRows(
    await sql<OrganizationEntryRow[]>`
    SELECT o.id, o.name, o.created_at,
           (SELECT count(*)::int FROM memberships m WHERE m.organization_id = o.id) AS members,
           (SELECT count(*)::int FROM projects p WHERE p.organization_id = o.id) AS projects
    FROM organizations o ORDER BY o.created_at, o.id`,
  );
}

export async function listUsers(sql: Db, filter: { organizationId?: string } = {}): Promise<UserEntry[]> {
  if (filter.organizationId === undefined) {
    return camelRows(
      await sql<UserEntryRow[]>`SELECT id, email, name, NULL AS role, created_at FROM users ORDER BY created_at, id`,
    );
  }
  return camelRows(
    await sql<UserEntryRow[]>`
    SELECT u.id, u.email, u.name, m.role, u.created_at
    FROM users u JOIN memberships m ON m.user_id = u.id AND m.organization_id = ${filter.organizationId}
    ORDER BY u.created_at, u.id`,
  );
}

export async function listProjectEntries(sql: Db, filter: { organizationId?: string } = {}): Promise<ProjectEntry[]> {
  return camelRows(
    await sql<ProjectEntryRow[]>`
    SELECT id, organization_id, name, visibility, is_default, created_at FROM projects
    ${filter.organizationId !== undefined ? sql`WHERE organization_id = ${filter.organizationId}` : sql``}
    ORDER BY created_at, id`,
  );
}

export async function listServerEntries(
  sql: Db,
  filter: { projectId?: string; organizationId?: string } = {},
): Promise<ServerEntry[]> {
  const where = [
    ...(filter.projectId !== undefined ? [sql`s.project_id = ${filter.projectId}`] : []),
    ...(filter.organizationId !== undefined ? [sql`p.organization_id = ${filter.organizationId}`] : []),
  ];
  return camelRows(
    await sql<ServerEntryRow[]>`
    SELECT s.id, s.project_id, s.name, s.transport_type, s.enabled, s.url, s.command, s.created_at
    FROM servers s JOIN projects p ON p.id = s.project_id
    ${where.length === 2 ? sql`WHERE ${where[0]} AND ${where[1]}` : where.length === 1 ? sql`WHERE ${where[0]}` : sql``}
    ORDER BY s.created_at, s.id`,
  );
}

export async function listApiKeys(sql: Db, filter: { organizationId?: string } = {}): Promise<KeyEntry[]> {
  return camelRows(
    await sql<KeyEntryRow[]>`
    SELECT k.id, k.name, k.key_prefix, k.organization_id, k.user_id, u.email AS user_email, k.created_at, k.revoked_at, k.last_used_at,
           m.user_id IS NOT NULL AS bound
    FROM api_keys k
    JOIN users u ON u.id = k.user_id
    LEFT JOIN memberships m ON m.organization_id = k.organization_id AND m.user_id = k.user_id
    ${filter.organizationId !== undefined ? sql`WHERE k.organization_id = ${filter.organizationId}` : sql``}
    ORDER BY k.created_at, k.id`,
  );
}
