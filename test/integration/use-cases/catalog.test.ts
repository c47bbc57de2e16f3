import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMembership, createUser } from '../../../db/accounts.js';
import { createChatbox, createChatSession } from '../../../db/catalog.js';
import { createCatalogStore } from '../../../db/catalogStore.js';
import { createProject } from '../../../db/projects.js';
import { SecretBox } from '../../../db/secretBox.js';
import { createServer } from '../../../db/servers.js';
import { createServerStore } from '../../../db/serverStore.js';
import type { CatalogStore } from '../../../domain/ports/catalogStore.js';
import type { ServerStore } from '../../../domain/ports/serverStore.js';
import type { Principal } from '../../../domain/principal.js';
import { closeTunnel } from '../../../domain/useCases/catalog/closeTunnel.js';
import { createTunnel } from '../../../domain/useCases/catalog/createTunnel.js';
import { getAccount } from '../../../domain/useCases/catalog/getAccount.js';
import { getChatbox } from '../../../domain/useCases/catalog/getChatbox.js';
import { listChatboxes } from '../../../domain/useCases/catalog/listChatboxes.js';
import { listChatSessions, type PageCursors } from '../../../domain/useCases/catalog/listChatSessions.js';
import { listProjects } from '../../../domain/useCases/catalog/listProjects.js';
import { listProjectServers } from '../../../domain/useCases/catalog/listProjectServers.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { seedOrganization, type SeededOrganization } from '../../helpers/seed.js';

// The catalog's read stories (domain/useCases/catalog), run without HTTP on a fresh database.

const principalOf = (org: SeededOrganization, orgRole: Principal['orgRole'] = 'owner'): Principal => ({
  keyId: org.keyId,
  userId: org.userId,
  organizationId: org.organizationId,
  orgRole,
});

/** Readable cursors (the API seals them; the story only needs them bound to its scope). */
const cursors: PageCursors = {
  encode: (scope, position) => JSON.stringify([scope, position]),
  decode<T>(scope: string, cursor: string): T {
    const [bound, position] = JSON.parse(cursor) as [string, T];
    if (bound !== scope) throw new Error(`cursor of ${bound}, not ${scope}`);
    return position;
  },
};

describe('catalog use cases', () => {
  let db: TestDatabase;
  let org: SeededOrganization;
  let other: SeededOrganization;
  let owner: Principal;
  let catalog: CatalogStore;
  let servers: ServerStore;
  const box = SecretBox.fromSetting(SecretBox.generateKey());

  beforeAll(async () => {
    db = await createTestDatabase();
    catalog = createCatalogStore(db.sql);
    servers = createServerStore(db.sql, box);
    org = await seedOrganization(db.sql, { name: 'Acme' });
    other = await seedOrganization(db.sql, { name: 'Elsewhere' });
    owner = principalOf(org);
  });
  afterAll(async () => db?.drop());

  it('getAccount: the key owner and the organization the key acts in', async () => {
    const account = await getAccount({ catalog })({ principal: owner });
    expect(account).toMatchObject({
      id: org.userId,
      imageUrl: null,
      plan: null,
      organization: { id: org.organizationId, name: 'Acme' },
    });
    expect(account.createdAt).toBeInstanceOf(Date);
  });

  it("listProjects: the organization's visible projects; another organization's filter lists none", async () => {
    const hidden = await createProject(db.sql, {
      organizationId: org.organizationId,
      name: 'Hidden',
      visibility: 'private',
    });
    const member = await createUser(db.sql, { email: 'member@example.test', name: 'Member' });
    await addMembership(db.sql, { organizationId: org.organizationId, userId: member.id, role: 'member' });
    const list = listProjects({ catalog });

    const asOwner = await list({ principal: owner });
    expect(asOwner.map((p) => p.id)).toEqual([org.projectId, hidden.id]);
    expect(asOwner[0]).toMatchObject({ organizationId: org.organizationId, isDefault: true, role: 'owner' });
    const asMember = await list({ principal: { ...owner, userId: member.id, orgRole: 'member' } });
    expect(asMember.map((p) => p.id)).toEqual([org.projectId]);
    expect(await list({ principal: owner, organizationId: org.organizationId })).toHaveLength(2);
    expect(await list({ principal: owner, organizationId: other.organizationId })).toEqual([]);
  });

  it("listProjectServers: a project's servers without their secrets; another organization's project is 404", async () => {
    await createServer(db.sql, box, {
      projectId: org.projectId,
      name: 'remote',
      transportType: 'http',
      url: 'https://mcp.example.test/mcp',
      headers: { 'x-api-key': 'headersecret' },
      useOAuth: true,
      oauthScopes: ['read'],
      clientSecret: 'clientsecret',
    });
    const list = listProjectServers({ servers });
    const [server] = await list({ principal: owner, projectId: org.projectId });
    expect(server).toEqual({
      id: expect.any(String),
      projectId: org.projectId,
      name: 'remote',
      enabled: true,
      transportType: 'http',
      url: 'https://mcp.example.test/mcp',
      useOAuth: true,
      hasClientSecret: true,
      oauthScopes: ['read'],
      protocol: null,
      createdAt: expect.any(Date),
      updatedAt: expect.any(Date),
    });
    await expect(list({ principal: owner, projectId: other.projectId })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'project not found',
    });
    // `default` names the organization's default project
    expect(await list({ principal: owner, projectId: 'default' })).toHaveLength(1);
  });

  describe('listChatSessions', () => {
    const base = Date.UTC(2026, 0, 1);
    beforeAll(async () => {
      for (let i = 0; i < 5; i++)
        await createChatSession(db.sql, {
          projectId: org.projectId,
          userId: org.userId,
          title: `chat ${i}`,
          visibility: 'project',
          lastActivityAt: new Date(base + i * 1000),
        });
      await createChatSession(db.sql, { projectId: org.projectId, userId: org.userId, status: 'archived' });
      // another user's private session is not the key owner's to see
      const stranger = await createUser(db.sql, { email: 'stranger@example.test', name: 'Stranger' });
      await createChatSession(db.sql, { projectId: org.projectId, userId: stranger.id, title: 'private' });
    });
    const titles = (page: { sessions: { title: string | null }[] }) => page.sessions.map((s) => s.title);

    it('pages most recently active first, each page giving the cursor of the next', async () => {
      const list = listChatSessions({ catalog, cursors });
      const first = await list({ principal: owner, projectId: org.projectId, status: 'active', limit: 3 });
      expect(titles(first)).toEqual(['chat 4', 'chat 3', 'chat 2']);
      const second = await list({
        principal: owner,
        status: 'active',
        projectId: org.projectId,
        cursor: first.nextCursor,
        limit: 3,
      });
      expect(titles(second)).toEqual(['chat 1', 'chat 0']);
      expect(second.nextCursor).toBeUndefined();
      // the real product's client pages with `before` = the previous nextCursor
      const again = await list({
        principal: owner,
        projectId: org.projectId,
        status: 'active',
        before: { cursor: first.nextCursor! },
        limit: 3,
      });
      expect(titles(again)).toEqual(['chat 1', 'chat 0']);
      expect(
        titles(await list({ principal: owner, status: 'active', before: { epochMs: base + 2000 }, limit: 10 })),
      ).toEqual(['chat 1', 'chat 0']);
    });

    it('selects by status: an unknown status, or none, selects nothing', async () => {
      const list = listChatSessions({ catalog, cursors });
      expect((await list({ principal: owner, status: 'archived', limit: 10 })).sessions).toHaveLength(1);
      expect(await list({ principal: owner, status: 'deleted', limit: 10 })).toEqual({ sessions: [] });
      expect(await list({ principal: owner, status: null, limit: 10 })).toEqual({ sessions: [] });
    });

    it("refuses a `before` that is no cursor of this list; another organization's project is 404 first", async () => {
      const list = listChatSessions({ catalog, cursors });
      // a cursor of the active sessions is no cursor of the archived ones
      const active = await list({ principal: owner, status: 'active', limit: 1 });
      expect(active.nextCursor).toBeDefined();
      await expect(
        list({ principal: owner, status: 'archived', before: { cursor: active.nextCursor! }, limit: 1 }),
      ).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        message: 'before is neither an epoch-ms instant nor a nextCursor of this list (same projectId and status)',
        details: { reason: 'INVALID_CURSOR', parameter: 'before' },
      });
      await expect(
        list({ principal: owner, projectId: other.projectId, status: 'active', before: { cursor: 'x' }, limit: 1 }),
      ).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'project not found' });
    });
  });

  it('listChatboxes and getChatbox: the project’s chatboxes with their servers; another project’s is 404', async () => {
    const server = await createServer(db.sql, box, {
      projectId: org.projectId,
      name: 'tools',
      transportType: 'stdio',
      command: '/bin/true',
    });
    const chatbox = await createChatbox(db.sql, {
      projectId: org.projectId,
      name: 'Support',
      modelId: 'openai/gpt-4.1-mini',
      serverIds: [server.id],
    });
    const [listed] = await listChatboxes({ catalog })({ principal: owner, projectId: org.projectId });
    expect(listed).toMatchObject({
      id: chatbox.id,
      name: 'Support',
      hostId: null,
      hostName: null,
      linkPath: `/chatbox/${chatbox.id}`,
      servers: [{ id: server.id, name: 'tools', url: null, useOAuth: false }],
    });
    const get = getChatbox({ catalog });
    expect(await get({ principal: owner, projectId: org.projectId, chatboxId: chatbox.id })).toMatchObject({
      modelId: 'openai/gpt-4.1-mini',
      requireToolApproval: false,
    });
    await expect(get({ principal: owner, projectId: org.projectId, chatboxId: 'cbx_nope' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'chatbox not found',
      details: { chatboxId: 'cbx_nope' },
    });
    await expect(
      get({ principal: principalOf(other), projectId: org.projectId, chatboxId: chatbox.id }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'project not found' });
  });

  it('tunnels: not offered once the project (and server) is found; 404 before that', async () => {
    const [server] = await listProjectServers({ servers })({ principal: owner, projectId: org.projectId });
    const notOffered = { code: 'FEATURE_NOT_SUPPORTED', details: { reason: 'TUNNELS_NOT_OFFERED' } };
    await expect(createTunnel({ catalog })({ principal: owner, projectId: org.projectId })).rejects.toMatchObject(
      notOffered,
    );
    await expect(createTunnel({ catalog })({ principal: owner, projectId: other.projectId })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const close = closeTunnel({ servers });
    await expect(close({ principal: owner, projectId: org.projectId, serverId: server.id })).rejects.toMatchObject(
      notOffered,
    );
    await expect(close({ principal: owner, projectId: org.projectId, serverId: 'srv_nope' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'server not found',
    });
    await expect(close({ principal: owner, projectId: other.projectId, serverId: server.id })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'project not found',
    });
  });
});
