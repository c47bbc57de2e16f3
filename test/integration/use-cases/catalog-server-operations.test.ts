import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../../../db/secretBox.js';
import { createServer } from '../../../db/servers.js';
import { createServerStore } from '../../../db/serverStore.js';
import type { McpOperations } from '../../../domain/mcp/index.js';
import type { Principal } from '../../../domain/principal.js';
import { runServerOperation } from '../../../domain/useCases/catalog/runServerOperation.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { seedOrganization, type SeededOrganization } from '../../helpers/seed.js';
import type { SavedServer } from '../../../domain/catalog/server.js';

// The server lookup every server operation starts with (domain/useCases/catalog/runServerOperation.ts), without
// HTTP and without an MCP server: the operation is a stand-in that reports the server it was given.

const principalOf = (org: SeededOrganization): Principal => ({
  keyId: org.keyId,
  userId: org.userId,
  organizationId: org.organizationId,
  orgRole: 'owner',
});

describe('runServerOperation', () => {
  let db: TestDatabase;
  let org: SeededOrganization;
  let principal: Principal;
  let enabledId: string;
  let disabledId: string;
  const box = SecretBox.fromSetting(SecretBox.generateKey());
  const mcp = {} as McpOperations;
  let run: ReturnType<typeof runServerOperation>;
  let given: SavedServer[];
  const operation = async (received: McpOperations, server: SavedServer) => {
    expect(received).toBe(mcp);
    given.push(server);
    return { ran: server.id };
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    org = await seedOrganization(db.sql);
    principal = principalOf(org);
    run = runServerOperation({ servers: createServerStore(db.sql, box), mcp });
    enabledId = (
      await createServer(db.sql, box, {
        projectId: org.projectId,
        name: 'weather',
        transportType: 'http',
        url: 'https://mcp.example.test/mcp',
        headers: { 'x-api-key': 'headersecret' },
        clientSecret: 'clientsecret',
      })
    ).id;
    disabledId = (
      await createServer(db.sql, box, {
        projectId: org.projectId,
        name: 'paused',
        transportType: 'stdio',
        command: '/bin/true',
        enabled: false,
      })
    ).id;
  });
  afterAll(async () => db?.drop());

  it('runs the operation on the server with its secrets opened', async () => {
    given = [];
    const input = { principal, projectId: org.projectId, serverId: enabledId, connects: true };
    expect(await run(input, operation)).toEqual({ ran: enabledId });
    expect(given).toMatchObject([
      {
        id: enabledId,
        organizationId: org.organizationId,
        headers: { 'x-api-key': 'headersecret' },
        clientSecret: 'clientsecret',
      },
    ]);
  });

  it('refuses a disabled server for what connects to it, not for what only reads what Runway keeps', async () => {
    given = [];
    const input = { principal, projectId: org.projectId, serverId: disabledId };
    await expect(run({ ...input, connects: true }, operation)).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: "server 'paused' is disabled; enable it to run operations on it",
      details: { reason: 'SERVER_DISABLED', serverId: disabledId },
    });
    expect(given).toEqual([]);
    expect(await run({ ...input, connects: false }, operation)).toEqual({ ran: disabledId });
  });

  it("is 404 for a server the project lacks (naming the server a name stands for) and for another organization's project", async () => {
    given = [];
    await expect(
      run({ principal, projectId: org.projectId, serverId: 'weather', connects: true }, operation),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringContaining(`"weather" is the name of server ${enabledId}; use its id`),
      details: { serverId: 'weather', namedServers: [{ id: enabledId, name: 'weather' }] },
    });
    const outsider = await seedOrganization(db.sql);
    await expect(
      run(
        { principal: principalOf(outsider), projectId: org.projectId, serverId: enabledId, connects: false },
        operation,
      ),
    ).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'project not found', details: { projectId: org.projectId } });
    expect(given).toEqual([]);
  });
});
