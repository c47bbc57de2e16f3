import { createRequire } from 'node:module';
import { addMembership, createApiKey, createOrganization, createUser } from '../db/accounts.js';
import type { Sql } from '../db/connection.js';
import { createProject } from '../db/projects.js';
import type { SecretBox } from '../domain/ports/secretBox.js';
import { createServer } from '../db/servers.js';

export interface DemoSeed {
  apiKey: string;
  /** the key's id, which `npm run -s admin -- key revoke` takes */
  apiKeyId: string;
  organizationId: string;
  projectId: string;
  servers: { id: string; name: string; transportType: string }[];
}

/** The reference server's entry script, run with this Node binary (no network, no global install). */
export function serverEverythingEntry(): string {
  return createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');
}

/**
 * A demo organization with one project and the reference MCP server saved twice: over stdio (spawned per
 * connection by Runway) and over streamable HTTP at `httpUrl` (a process `npm start` runs beside the API).
 */
export async function seedDemo(
  sql: Sql,
  box: SecretBox,
  options: { httpUrl: string; email?: string },
): Promise<DemoSeed> {
  return await sql.begin(async (tx) => {
    const org = await createOrganization(tx, { name: 'Demo organization' });
    const user = await createUser(tx, { email: options.email ?? `demo+${org.id}@runway.local`, name: 'Demo user' });
    await addMembership(tx, { organizationId: org.id, userId: user.id, role: 'owner' });
    const project = await createProject(tx, {
      organizationId: org.id,
      name: 'Demo project',
      description: 'MCP servers to try Runway with',
      isDefault: true,
    });
    const stdio = await createServer(tx, box, {
      projectId: project.id,
      name: 'everything (stdio)',
      transportType: 'stdio',
      command: process.execPath,
      args: [serverEverythingEntry(), 'stdio'],
    });
    const http = await createServer(tx, box, {
      projectId: project.id,
      name: 'everything (http)',
      transportType: 'http',
      url: options.httpUrl,
    });
    const key = await createApiKey(tx, { name: 'demo key', organizationId: org.id, userId: user.id });
    return { apiKey: key.key, apiKeyId: key.id, organizationId: org.id, projectId: project.id, servers: [stdio, http] };
  });
}
