import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostTemplateIds, templateConfig } from '../../api/hostTemplates.js';
import { createServer } from '../../db/servers.js';
import { apiClient } from '../helpers/http.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

describe('hosts', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let serverId: string;

  beforeAll(async () => {
    stack = await startTestStack({ worker: false, config: { RATE_LIMIT_BURST: '1000', RATE_LIMIT_PER_MINUTE: '60000' } });
    org = await seedOrganization(stack.sql);
    call = apiClient(stack.baseUrl, org.apiKey);
    serverId = (await createServer(stack.sql, stack.box, { projectId: org.projectId, name: 's', transportType: 'http', url: 'http://127.0.0.1:1/mcp' })).id;
  });
  afterAll(async () => stack?.stop());

  it.each(hostTemplateIds)('creates a host from the %s template', async (template) => {
    const created = await call('POST', `/projects/${org.projectId}/hosts`, { name: `My ${template}`, template });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(String), name: `My ${template}`, config: templateConfig(template), createdAt: expect.any(Number), updatedAt: expect.any(Number) });
    const read = await call('GET', `/projects/${org.projectId}/hosts/${created.body.id}`);
    expect(read.body).toEqual(created.body);
  });

  it('creates from a full config, lists, edits, and deletes', async () => {
    const config = { ...templateConfig('cursor'), modelId: 'openai/gpt-4.1-mini', serverIds: [serverId] };
    const created = await call('POST', `/projects/${org.projectId}/hosts`, { name: 'Custom', config });
    expect(created.status).toBe(201);
    const hostId = created.body.id;

    const list = await call('GET', `/projects/${org.projectId}/hosts`);
    expect(list.body.items).toContainEqual({ id: hostId, name: 'Custom', modelId: 'openai/gpt-4.1-mini', serverCount: 1, createdAt: expect.any(Number), updatedAt: expect.any(Number) });

    const renamed = await call('PATCH', `/projects/${org.projectId}/hosts/${hostId}`, { name: 'Renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Renamed', config });

    const replaced = await call('PATCH', `/projects/${org.projectId}/hosts/${hostId}`, { config: templateConfig('claude') });
    expect(replaced.body).toMatchObject({ name: 'Renamed', config: templateConfig('claude') });

    const deleted = await call('DELETE', `/projects/${org.projectId}/hosts/${hostId}`);
    expect(deleted).toMatchObject({ status: 200, body: { id: hostId, deleted: true } });
    expect((await call('GET', `/projects/${org.projectId}/hosts/${hostId}`)).status).toBe(404);
    expect((await call('DELETE', `/projects/${org.projectId}/hosts/${hostId}`)).status).toBe(404);
  });

  it.each([
    ['neither template nor config', { name: 'x' }],
    ['both template and config', { name: 'x', template: 'claude', config: templateConfig('claude') }],
    ['an empty config', { name: 'x', config: {} }],
    ['an unknown template', { name: 'x', template: 'netscape' }],
    ['no name', { template: 'claude' }],
    ['a config missing fields', { name: 'x', config: { modelId: 'openai/gpt-5' } }],
    ['a temperature out of range', { name: 'x', config: { ...templateConfig('claude'), temperature: 9 } }],
    ['a server of no such id', { name: 'x', config: { ...templateConfig('claude'), serverIds: ['srv_elsewhere'] } }],
  ])('rejects %s with 400 and writes nothing', async (_label, body) => {
    const before = await stack.sql`SELECT count(*)::int AS n FROM hosts`;
    const reply = await call('POST', `/projects/${org.projectId}/hosts`, body);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.any(String) });
    expect(await stack.sql`SELECT count(*)::int AS n FROM hosts`).toEqual(before);
  });

  it('PATCH needs at least one field', async () => {
    const created = await call('POST', `/projects/${org.projectId}/hosts`, { name: 'p', template: 'codex' });
    const reply = await call('PATCH', `/projects/${org.projectId}/hosts/${created.body.id}`, {});
    expect(reply.status).toBe(400);
  });

  it('another organization cannot see, edit or delete the hosts (404)', async () => {
    const created = await call('POST', `/projects/${org.projectId}/hosts`, { name: 'mine', template: 'vscode' });
    const intruder = apiClient(stack.baseUrl, (await seedOrganization(stack.sql)).apiKey);
    const paths = [`/projects/${org.projectId}/hosts`, `/projects/${org.projectId}/hosts/${created.body.id}`];
    expect((await intruder('GET', paths[0])).status).toBe(404);
    expect((await intruder('POST', paths[0], { name: 'x', template: 'claude' })).status).toBe(404);
    expect((await intruder('GET', paths[1])).status).toBe(404);
    expect((await intruder('PATCH', paths[1], { name: 'pwned' })).status).toBe(404);
    expect((await intruder('DELETE', paths[1])).status).toBe(404);
    expect((await call('GET', paths[1])).body.name).toBe('mine');
  });
});
