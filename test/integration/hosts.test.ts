import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostTemplateIds, templateConfig } from '../../api/hostTemplates.js';
import type { HostConfig } from '../../api/schemas/hosts.js';
import { findHostHeaders, sealLegacyHostHeaders } from '../../db/hosts.js';
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
    expect(created.body).toEqual({ id: expect.any(String), name: `My ${template}`, config: redacted(templateConfig(template)), createdAt: expect.any(Number), updatedAt: expect.any(Number) });
    const read = await call('GET', `/projects/${org.projectId}/hosts/${created.body.id}`);
    expect(read.body).toEqual(created.body);
    expect(await findHostHeaders(stack.sql, stack.box, org.projectId, created.body.id)).toEqual(templateConfig(template).connectionDefaults.headers);
  });

  describe('header values are secrets', () => {
    const secret = 'host-header-SECRET-5772';
    const withHeaders = (headers: Record<string, string>): HostConfig => {
      const config = templateConfig('mcpjam');
      return { ...config, connectionDefaults: { ...config.connectionDefaults, headers } };
    };
    const hostsPath = () => `/projects/${org.projectId}/hosts`;

    it('are stored encrypted and returned as [redacted]', async () => {
      const created = await call('POST', hostsPath(), { name: 'with a key', config: withHeaders({ 'X-Api-Key': secret, 'X-Team': 'blue' }) });
      expect(created.status).toBe(201);
      expect(created.body.config.connectionDefaults.headers).toEqual({ 'X-Api-Key': '[redacted]', 'X-Team': '[redacted]' });
      const read = await call('GET', `${hostsPath()}/${created.body.id}`);
      expect(read.body.config.connectionDefaults.headers).toEqual({ 'X-Api-Key': '[redacted]', 'X-Team': '[redacted]' });
      expect(JSON.stringify([created.body, read.body, (await call('GET', hostsPath())).body])).not.toContain(secret);

      const [row] = await stack.sql`SELECT to_jsonb(hosts)::text AS text FROM hosts WHERE id = ${created.body.id}`;
      expect(row.text).not.toContain(secret);
      expect(row.text).not.toContain('blue');
      expect(await findHostHeaders(stack.sql, stack.box, org.projectId, created.body.id)).toEqual({ 'X-Api-Key': secret, 'X-Team': 'blue' });
    });

    it('a PATCH keeps a [redacted] value, replaces a new one, drops a missing one; a rename keeps them all', async () => {
      const created = await call('POST', hostsPath(), { name: 'rw', config: withHeaders({ 'X-Api-Key': secret, 'X-Team': 'blue', 'X-Old': 'gone' }) });
      const hostPath = `${hostsPath()}/${created.body.id}`;
      const read = await call('GET', hostPath);
      const edited = structuredClone(read.body.config);
      edited.temperature = 0.1;
      edited.connectionDefaults.headers = { 'X-Api-Key': '[redacted]', 'X-Team': 'green' };
      const patched = await call('PATCH', hostPath, { config: edited });
      expect(patched.status).toBe(200);
      expect(patched.body.config).toEqual({ ...edited, connectionDefaults: { ...edited.connectionDefaults, headers: { 'X-Api-Key': '[redacted]', 'X-Team': '[redacted]' } } });
      expect(await findHostHeaders(stack.sql, stack.box, org.projectId, created.body.id)).toEqual({ 'X-Api-Key': secret, 'X-Team': 'green' });

      expect((await call('PATCH', hostPath, { name: 'renamed' })).status).toBe(200);
      expect(await findHostHeaders(stack.sql, stack.box, org.projectId, created.body.id)).toEqual({ 'X-Api-Key': secret, 'X-Team': 'green' });

      // Header names are case-insensitive: the stored value is kept under the name the PATCH gives.
      edited.connectionDefaults.headers = { 'x-api-key': '[redacted]' };
      expect((await call('PATCH', hostPath, { config: edited })).status).toBe(200);
      expect(await findHostHeaders(stack.sql, stack.box, org.projectId, created.body.id)).toEqual({ 'x-api-key': secret });
    });

    it('[redacted] for a header with no stored value is 400 and changes nothing', async () => {
      const created = await call('POST', hostsPath(), { name: 'strict', config: withHeaders({ 'X-Api-Key': secret }) });
      const hostPath = `${hostsPath()}/${created.body.id}`;
      const patched = await call('PATCH', hostPath, { config: withHeaders({ 'X-Api-Key': '[redacted]', 'X-Other': '[redacted]' }) });
      expect(patched.status).toBe(400);
      expect(patched.body).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('X-Other'), details: { headers: ['X-Other'] } });
      expect(await findHostHeaders(stack.sql, stack.box, org.projectId, created.body.id)).toEqual({ 'X-Api-Key': secret });

      const copy = await call('POST', hostsPath(), { name: 'copy', config: withHeaders({ 'X-Api-Key': '[redacted]' }) });
      expect(copy).toMatchObject({ status: 400, body: { code: 'VALIDATION_ERROR', details: { headers: ['X-Api-Key'] } } });
    });

    it('a host saved before encryption (plain headers in its config) is redacted at once and sealed at start', async () => {
      const config = withHeaders({ 'X-Api-Key': secret });
      const [{ id }] = await stack.sql`
        INSERT INTO hosts (id, project_id, name, config) VALUES ('host_legacy', ${org.projectId}, 'legacy', ${stack.sql.json(config as never)}) RETURNING id`;
      const read = await call('GET', `${hostsPath()}/${id}`);
      expect(read.body.config).toEqual(redacted(config));
      expect(await findHostHeaders(stack.sql, stack.box, org.projectId, id)).toEqual({ 'X-Api-Key': secret });

      expect(await sealLegacyHostHeaders(stack.sql, stack.box)).toBe(1);
      expect(await sealLegacyHostHeaders(stack.sql, stack.box)).toBe(0);
      const [row] = await stack.sql`SELECT to_jsonb(hosts)::text AS text FROM hosts WHERE id = ${id}`;
      expect(row.text).not.toContain(secret);
      expect((await call('GET', `${hostsPath()}/${id}`)).body).toEqual(read.body);
      expect(await findHostHeaders(stack.sql, stack.box, org.projectId, id)).toEqual({ 'X-Api-Key': secret });
    });
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
    expect(renamed.body).toMatchObject({ name: 'Renamed', config: redacted(config) });

    const replaced = await call('PATCH', `/projects/${org.projectId}/hosts/${hostId}`, { config: templateConfig('claude') });
    expect(replaced.body).toMatchObject({ name: 'Renamed', config: redacted(templateConfig('claude')) });

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

/** A config as the API returns it: every header value replaced by the redaction marker. */
function redacted(config: HostConfig): HostConfig {
  const headers = Object.fromEntries(Object.keys(config.connectionDefaults.headers).map((name) => [name, '[redacted]']));
  return { ...config, connectionDefaults: { ...config.connectionDefaults, headers } };
}
