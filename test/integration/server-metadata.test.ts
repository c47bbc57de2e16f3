import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROMPTS, RESOURCE_TEMPLATES, RESOURCES, startMetadataServer, TOOLS } from '../fixtures/mcp/metadata.js';
import type { StartedServer } from '../fixtures/mcp/serve.js';
import { apiClient } from '../helpers/http.js';
import { fixtureOverStdio, saveServer } from '../helpers/mcpServers.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

/** `plain` leaves its description out; the contract's Tool always has one (empty). Nothing else is added. */
const LISTED_TOOLS = [TOOLS[0], { ...TOOLS[1], description: '' }];

type Schema = {
  type?: string;
  additionalProperties?: unknown;
  properties?: Record<string, Schema>;
  items?: Schema;
  $ref?: string;
};

/** Tool, prompt and resource metadata reach the caller as the server sent it: lists, doctor and export. */
describe('server metadata passes through', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let fixture: StartedServer;
  const servers: Record<string, string> = {};
  const op = (server: string, suffix: string, body: unknown = {}) =>
    call('POST', `/projects/${org.projectId}/servers/${servers[server]}/${suffix}`, body);

  beforeAll(async () => {
    [stack, fixture] = await Promise.all([
      startTestStack({ worker: false, config: { RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_MINUTE: '600000' } }),
      startMetadataServer(),
    ]);
    org = await seedOrganization(stack.sql);
    call = apiClient(stack.baseUrl, org.apiKey);
    servers.http = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'metadata',
      transportType: 'http',
      url: fixture.url,
    });
    servers.stdio = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'metadata-stdio',
      ...fixtureOverStdio('metadata'),
    });
  });
  afterAll(async () => {
    await stack?.stop();
    await fixture?.close();
  });

  it.each(['http', 'stdio'])(
    'lists tools, prompts and resources unchanged: execution, every annotation key, _meta, icons (%s)',
    async (server) => {
      const tools = await op(server, 'tools');
      expect(tools.status).toBe(200);
      expect(tools.body.items).toEqual(LISTED_TOOLS);
      expect((await op(server, 'prompts')).body.items).toEqual(PROMPTS);
      expect((await op(server, 'resources')).body.items).toEqual(RESOURCES);
    },
  );

  it('doctor lists them unchanged, resource templates included', async () => {
    const report = (await op('http', 'doctor')).body;
    expect(report.status).toBe('ready');
    expect(report.tools).toEqual(LISTED_TOOLS);
    expect(report.prompts).toEqual(PROMPTS);
    expect(report.resources).toEqual(RESOURCES);
    expect(report.resourceTemplates).toEqual(RESOURCE_TEMPLATES);
    expect(report.checks.resourceTemplates).toMatchObject({
      status: 'ok',
      detail: `${RESOURCE_TEMPLATES.length} listed`,
    });
  });

  it('export carries the same, and every page of the resource templates', async () => {
    const reply = await op('http', 'export');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      serverId: servers.http,
      exportedAt: expect.any(String),
      tools: LISTED_TOOLS,
      resources: RESOURCES,
      resourceTemplates: RESOURCE_TEMPLATES,
      prompts: PROMPTS,
    });
  });

  it('the OpenAPI document describes these as open objects', async () => {
    const document = (await (await fetch(`${stack.baseUrl}/openapi.json`)).json()) as {
      components: { schemas: Record<string, Schema> };
    };
    const schemas = document.components.schemas;
    const open = (schema: Schema | undefined) =>
      schema?.additionalProperties !== undefined && schema.additionalProperties !== false;
    for (const name of ['Tool', 'Prompt', 'ResourceEntry', 'ResourceTemplate'])
      expect(open(schemas[name]), name).toBe(true);
    expect(schemas.ServerSnapshot.properties?.resourceTemplates?.items?.$ref).toBe(
      '#/components/schemas/ResourceTemplate',
    );
  });
});
