import { addMembership, createApiKey, createOrganization, createUser } from '../../db/accounts.js';
import type { Sql } from '../../db/connection.js';
import { randomBase62 } from '../../domain/ids.js';
import { createProject } from '../../db/projects.js';
import type { OrgRole } from '../../domain/principal.js';

export interface SeededOrganization {
  organizationId: string;
  userId: string;
  projectId: string;
  apiKey: string;
  keyId: string;
}

/** An organization with one owner, a default project and an API key, written with the same db modules as the CLI. */
export async function seedOrganization(
  sql: Sql,
  options: { name?: string; role?: OrgRole } = {},
): Promise<SeededOrganization> {
  const tag = randomBase62(6);
  const org = await createOrganization(sql, { name: options.name ?? `Org ${tag}` });
  const user = await createUser(sql, { email: `user-${tag}@example.test`, name: `User ${tag}` });
  await addMembership(sql, { organizationId: org.id, userId: user.id, role: options.role ?? 'owner' });
  const project = await createProject(sql, { organizationId: org.id, name: `Project ${tag}`, isDefault: true });
  const key = await createApiKey(sql, { name: 'test key', organizationId: org.id, userId: user.id });
  return { organizationId: org.id, userId: user.id, projectId: project.id, apiKey: key.key, keyId: key.id };
}
