import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMembership, createApiKey, createUser } from '../../db/accounts.js';
import { createChatbox, createChatSession } from '../../db/catalog.js';
import { addProjectMember, createProject } from '../../db/projects.js';
import { createServer } from '../../db/servers.js';
import { apiClient } from '../helpers/http.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

describe('catalog reads', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let stdioServerId: string;
  let httpServerId: string;

  beforeAll(async () => {
    stack = await startTestStack({
      worker: false,
      config: { RATE_LIMIT_BURST: '1000', RATE_LIMIT_PER_MINUTE: '60000' },
    });
    org = await seedOrganization(stack.sql, { name: 'Acme' });
    call = apiClient(stack.baseUrl, org.apiKey);
    stdioServerId = (
      await createServer(stack.sql, stack.box, {
        projectId: org.projectId,
        name: 'local',
        transportType: 'stdio',
        command: '/usr/bin/secret-tool',
        args: ['--token', 'hunter2'],
        env: { API_TOKEN: 'envsecret' },
      })
    ).id;
    httpServerId = (
      await createServer(stack.sql, stack.box, {
        projectId: org.projectId,
        name: 'remote',
        transportType: 'http',
        url: 'https://mcp.example.test/mcp',
        headers: { 'x-api-key': 'headersecret' },
        useOAuth: true,
        oauthScopes: ['read', 'write'],
        oauthClientId: 'client-1',
        clientSecret: 'clientsecret',
      })
    ).id;
  });
  afterAll(async () => stack?.stop());

  it('GET /me describes the key owner and its organization', async () => {
    const me = await call('GET', '/me');
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      id: org.userId,
      email: expect.stringContaining('@'),
      name: expect.any(String),
      imageUrl: null,
      profilePictureUrl: null,
      plan: null,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
      organization: { id: org.organizationId, name: 'Acme' },
    });
  });

  it('GET /projects lists the projects with the owner role; organizationId filters', async () => {
    const reply = await call('GET', '/projects');
    expect(reply.status).toBe(200);
    expect(reply.body.items).toEqual([
      expect.objectContaining({
        id: org.projectId,
        organizationId: org.organizationId,
        role: 'owner',
        visibility: 'organization',
        createdAt: expect.any(Number),
      }),
    ]);
    expect(reply.body.nextCursor).toBeUndefined();
    expect((await call('GET', `/projects?organizationId=${org.organizationId}`)).body.items).toHaveLength(1);
    expect((await call('GET', '/projects?organizationId=org_other')).body.items).toEqual([]);
  });

  it('private projects are visible to their members and org admins only', async () => {
    const secret = await createProject(stack.sql, {
      organizationId: org.organizationId,
      name: 'Secret',
      visibility: 'private',
    });
    const member = await createUser(stack.sql, { email: 'member@acme.test', name: 'Member' });
    await addMembership(stack.sql, { organizationId: org.organizationId, userId: member.id, role: 'member' });
    const memberKey = await createApiKey(stack.sql, {
      name: 'm',
      organizationId: org.organizationId,
      userId: member.id,
    });
    const asMember = apiClient(stack.baseUrl, memberKey.key);

    expect((await asMember('GET', '/projects')).body.items.map((p: { id: string }) => p.id)).toEqual([org.projectId]);
    expect((await asMember('GET', `/projects/${secret.id}/servers`)).status).toBe(404);
    expect((await call('GET', '/projects')).body.items.map((p: { id: string }) => p.id)).toContain(secret.id);

    await addProjectMember(stack.sql, { projectId: secret.id, userId: member.id, role: 'viewer' });
    const visible = (await asMember('GET', '/projects')).body.items.find((p: { id: string }) => p.id === secret.id);
    expect(visible).toMatchObject({ role: 'viewer' });
  });

  it('GET /projects/{id}/servers never exposes command, args, env, headers or secrets', async () => {
    const reply = await call('GET', `/projects/${org.projectId}/servers`);
    expect(reply.status).toBe(200);
    expect(reply.body.items).toEqual([
      {
        id: stdioServerId,
        name: 'local',
        enabled: true,
        transportType: 'stdio',
        useOAuth: false,
        hasClientSecret: false,
        projectId: org.projectId,
        url: '',
        oauthScopes: [],
        createdAt: expect.any(Number),
        updatedAt: expect.any(Number),
        protocol: null,
      },
      {
        id: httpServerId,
        name: 'remote',
        enabled: true,
        transportType: 'http',
        useOAuth: true,
        hasClientSecret: true,
        projectId: org.projectId,
        url: 'https://mcp.example.test/mcp',
        oauthScopes: ['read', 'write'],
        createdAt: expect.any(Number),
        updatedAt: expect.any(Number),
        protocol: null,
      },
    ]);
    const text = JSON.stringify(reply.body);
    for (const secret of ['secret-tool', 'hunter2', 'envsecret', 'headersecret', 'clientsecret'])
      expect(text).not.toContain(secret);
  });

  it('secrets are encrypted at rest', async () => {
    const rows = await stack.sql`SELECT * FROM servers WHERE project_id = ${org.projectId}`;
    const text = JSON.stringify(rows);
    for (const secret of ['envsecret', 'headersecret', 'clientsecret']) expect(text).not.toContain(secret);
  });

  it('GET /chat-sessions filters by project and status, pages with an opaque cursor, and honours before', async () => {
    const base = Date.UTC(2026, 0, 1);
    for (let i = 0; i < 7; i++) {
      await createChatSession(stack.sql, {
        projectId: org.projectId,
        userId: org.userId,
        title: `chat ${i}`,
        visibility: 'project',
        lastActivityAt: new Date(base + i * 1000),
      });
    }
    await createChatSession(stack.sql, {
      projectId: org.projectId,
      userId: org.userId,
      title: 'old',
      status: 'archived',
      lastActivityAt: new Date(base),
    });

    const first = await call('GET', `/chat-sessions?projectId=${org.projectId}&limit=3`);
    expect(first.status).toBe(200);
    expect(first.body.items.map((s: { title: string }) => s.title)).toEqual(['chat 6', 'chat 5', 'chat 4']);
    expect(first.body.items[0]).toEqual({
      id: expect.any(String),
      title: 'chat 6',
      status: 'active',
      projectId: org.projectId,
      visibility: 'project',
      lastActivityAt: base + 6000,
      createdAt: expect.any(Number),
      isPinned: false,
      isUnread: false,
    });
    const second = await call(
      'GET',
      `/chat-sessions?projectId=${org.projectId}&limit=3&cursor=${first.body.nextCursor}`,
    );
    expect(second.body.items.map((s: { title: string }) => s.title)).toEqual(['chat 3', 'chat 2', 'chat 1']);
    const third = await call(
      'GET',
      `/chat-sessions?projectId=${org.projectId}&limit=3&cursor=${second.body.nextCursor}`,
    );
    expect(third.body.items.map((s: { title: string }) => s.title)).toEqual(['chat 0']);
    expect(third.body.nextCursor).toBeUndefined();

    const archived = await call('GET', '/chat-sessions?status=archived');
    expect(archived.body.items.map((s: { title: string }) => s.title)).toEqual(['old']);
    const before = await call('GET', `/chat-sessions?before=${base + 2000}`);
    expect(before.body.items.map((s: { title: string }) => s.title)).toEqual(['chat 1', 'chat 0']);
  });

  it("GET /chat-sessions hides other users' private sessions", async () => {
    const colleague = await createUser(stack.sql, { email: 'colleague@acme.test', name: 'Colleague' });
    await addMembership(stack.sql, { organizationId: org.organizationId, userId: colleague.id, role: 'member' });
    await createChatSession(stack.sql, {
      projectId: org.projectId,
      userId: colleague.id,
      title: 'diary',
      visibility: 'private',
    });
    const titles = (await call('GET', '/chat-sessions?limit=200')).body.items.map((s: { title: string }) => s.title);
    expect(titles).not.toContain('diary');
  });

  // (An out-of-range limit is clamped, not refused: contract-corrections.test.ts.) A malformed cursor stays a 400
  // (contract-notes, Corrections); `before` that is no instant is read as one.
  it.each([['before=yesterday'], ['cursor=not-a-cursor']])(
    'GET /chat-sessions?%s is 400 VALIDATION_ERROR',
    async (query) => {
      const reply = await call('GET', `/chat-sessions?${query}`);
      expect(reply.status).toBe(400);
      expect(reply.body.code).toBe('VALIDATION_ERROR');
      expect(reply.body.details.reason).toBe('INVALID_CURSOR');
    },
  );

  // Issue 29 item 12: the real product's document lists no 400 for GET /chat-sessions and GET /projects. A filter
  // value that no session (organization) has selects none: an empty page, never a 400.
  it.each([['status=deleted'], ['status=ACTIVE'], ['status=active&status=archived']])(
    'GET /chat-sessions?%s matches no session: an empty page',
    async (query) => {
      await createChatSession(stack.sql, { projectId: org.projectId, userId: org.userId, title: 'filtered' });
      expect((await call('GET', '/chat-sessions')).body.items.length).toBeGreaterThan(0);
      const reply = await call('GET', `/chat-sessions?${query}`);
      expect(reply).toMatchObject({ status: 200, body: { items: [] } });
      expect(reply.body.nextCursor).toBeUndefined();
    },
  );

  it('GET /chat-sessions?status= (empty) is status not given: the active sessions', async () => {
    const absent = await call('GET', '/chat-sessions');
    expect(absent.body.items.length).toBeGreaterThan(0);
    expect(await call('GET', '/chat-sessions?status=')).toMatchObject({ status: 200, body: absent.body });
  });

  it('GET /chat-sessions with a projectId that is no id at all is the 404 of an unknown project', async () => {
    const reply = await call('GET', '/chat-sessions?projectId=not%20a%20project!');
    expect(reply).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
  });

  it('GET /projects?organizationId that is no id at all names no organization of the key: no projects', async () => {
    expect(await call('GET', '/projects?organizationId=not%20an%20org!')).toMatchObject({
      status: 200,
      body: { items: [] },
    });
  });

  it('a cursor that was tampered with, or comes from another list, is 400', async () => {
    const page = await call('GET', `/chat-sessions?projectId=${org.projectId}&limit=1`);
    const cursor: string = page.body.nextCursor;
    const tampered = cursor.slice(0, 5) + (cursor[5] === 'A' ? 'B' : 'A') + cursor.slice(6);
    expect((await call('GET', `/chat-sessions?projectId=${org.projectId}&limit=1&cursor=${tampered}`)).status).toBe(
      400,
    );
    expect((await call('GET', `/chat-sessions?status=archived&cursor=${cursor}`)).status).toBe(400);
  });

  it("chatboxes: summaries, detail with servers, and 404 for another project's chatbox", async () => {
    const chatbox = await createChatbox(stack.sql, {
      projectId: org.projectId,
      name: 'Support bot',
      description: 'helps',
      modelId: 'openai/gpt-4.1',
      systemPrompt: 'Be kind',
      temperature: 0.2,
      requireToolApproval: true,
      serverIds: [httpServerId, stdioServerId],
      mode: 'anyone_with_link',
    });
    const list = await call('GET', `/projects/${org.projectId}/chatboxes`);
    expect(list.status).toBe(200);
    expect(list.body.items).toEqual([
      {
        id: chatbox.id,
        name: 'Support bot',
        serverCount: 2,
        serverNames: ['remote', 'local'],
        projectId: org.projectId,
        description: 'helps',
        hostStyle: 'mcpjam',
        hostId: null,
        hostName: null,
        mode: 'anyone_with_link',
        link: { path: `/chatbox/${chatbox.id}`, url: `${stack.origin}/chatbox/${chatbox.id}` },
        createdAt: expect.any(Number),
        updatedAt: expect.any(Number),
      },
    ]);
    const detail = await call('GET', `/projects/${org.projectId}/chatboxes/${chatbox.id}`);
    expect(detail.body).toMatchObject({
      modelId: 'openai/gpt-4.1',
      systemPrompt: 'Be kind',
      temperature: 0.2,
      requireToolApproval: true,
      servers: [
        { id: httpServerId, name: 'remote', url: 'https://mcp.example.test/mcp', useOAuth: true },
        { id: stdioServerId, name: 'local', url: null, useOAuth: false },
      ],
    });

    const sibling = await createProject(stack.sql, { organizationId: org.organizationId, name: 'Sibling' });
    const wrongProject = await call('GET', `/projects/${sibling.id}/chatboxes/${chatbox.id}`);
    expect(wrongProject.status).toBe(404);
    expect(wrongProject.body.code).toBe('NOT_FOUND');
  });
});
