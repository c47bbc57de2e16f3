import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostClientProfile } from '../../domain/mcp/clientProfile.js';
import { hostTemplateIds, templateConfig } from '../../api/hostTemplates.js';
import { findHostHeaders, sealLegacyHostHeaders } from '../../db/hosts.js';
import { createServer } from '../../db/servers.js';
import { apiClient } from '../helpers/http.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

type Config = Record<string, any>;

const readJson = (path: string) => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8'));

/** The real product's Claude host config v2, as its template produces it. */
const exampleConfig = (): Config => readJson('../fixtures/reference/host-config-v2-claude.json');

/** The real product's document: its host schemas check what Runway takes and answers. */
// CommonJS modules: under NodeNext their classes are the `default` of the default import (Node sets both).
const ajv = new Ajv2020.default({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({
  $id: 'https://reference.test/mcpjam',
  components: readJson('../fixtures/reference/mcpjam-openapi-2026-06-19.json').components,
});
function expectReference(schema: string, value: unknown) {
  const validate = ajv.getSchema(`https://reference.test/mcpjam#/components/schemas/${schema}`)!;
  expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
}

/** A config as the API returns it: every header value replaced by the redaction marker. */
function redacted(config: Config): Config {
  if (!config.connectionDefaults?.headers) return config;
  const headers = Object.fromEntries(
    Object.keys(config.connectionDefaults.headers).map((name) => [name, '[redacted]']),
  );
  return { ...config, connectionDefaults: { ...config.connectionDefaults, headers } };
}

/** `hostConfigId` as documented: hcfg_ + base64url(SHA-256(RFC 8785 JSON of the config as returned)). */
function expectedConfigId(config: unknown): string {
  const jcs = (value: unknown): string =>
    Array.isArray(value)
      ? `[${value.map(jcs).join(',')}]`
      : value !== null && typeof value === 'object'
        ? `{${Object.keys(value)
            .sort()
            .map((k) => `${JSON.stringify(k)}:${jcs((value as Config)[k])}`)
            .join(',')}}`
        : JSON.stringify(value);
  return `hcfg_${createHash('sha256').update(jcs(config)).digest('base64url')}`;
}

describe('hosts', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let serverId: string;
  const hostsPath = () => `/projects/${org.projectId}/hosts`;

  beforeAll(async () => {
    stack = await startTestStack({
      worker: false,
      config: { RATE_LIMIT_BURST: '1000', RATE_LIMIT_PER_MINUTE: '60000' },
    });
    org = await seedOrganization(stack.sql);
    call = apiClient(stack.baseUrl, org.apiKey);
    serverId = (
      await createServer(stack.sql, stack.box, {
        projectId: org.projectId,
        name: 's',
        transportType: 'http',
        url: 'http://127.0.0.1:1/mcp',
      })
    ).id;
  });
  afterAll(async () => stack?.stop());

  it.each(hostTemplateIds)(
    'creates a host from the %s template; its config is v2 and goes back in as a config',
    async (template) => {
      const body = { name: `My ${template}`, template, theme: 'dark' };
      expectReference('HostCreateRequest', body);
      const created = await call('POST', hostsPath(), body);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const config = templateConfig(template, 'dark');
      expect(config.hostContext.theme).toBe('dark');
      expect(created.body).toEqual({
        id: expect.any(String),
        name: `My ${template}`,
        hostConfigId: expectedConfigId(config),
        config,
        createdAt: expect.any(Number),
        updatedAt: expect.any(Number),
      });
      expectReference('HostDetail', created.body);
      // The v2 shape: client identity and protocol revisions under mcpProfile.initialize, the timeout as requestTimeout.
      expect(config).toMatchObject({
        modelId: expect.any(String),
        serverIds: [],
        optionalServerIds: [],
        connectionDefaults: { headers: {}, requestTimeout: expect.any(Number) },
        mcpProfile: {
          profileVersion: 1,
          initialize: {
            clientInfo: { name: expect.any(String), version: expect.any(String) },
            supportedProtocolVersions: expect.any(Array),
          },
        },
      });
      expect(config).not.toHaveProperty('clientInfo');
      expect(config.connectionDefaults).not.toHaveProperty('requestTimeoutMs');
      const read = await call('GET', `${hostsPath()}/${created.body.id}`);
      expect(read.body).toEqual(created.body);
      const list = await call('GET', hostsPath());
      expectReference('HostPage', list.body);
      expect(list.body.items).toContainEqual({
        id: created.body.id,
        name: `My ${template}`,
        hostConfigId: created.body.hostConfigId,
        modelId: config.modelId,
        serverCount: 0,
        createdAt: created.body.createdAt,
        updatedAt: created.body.updatedAt,
      });

      const again = { name: `Copy of ${template}`, config: read.body.config };
      expectReference('HostCreateRequest', again);
      const copy = await call('POST', hostsPath(), again);
      expect(copy.status, JSON.stringify(copy.body)).toBe(201);
      expect(copy.body).toMatchObject({ config, hostConfigId: created.body.hostConfigId });
      expect(
        (await call('PATCH', `${hostsPath()}/${created.body.id}`, { config: read.body.config })).body,
      ).toMatchObject({ config, hostConfigId: created.body.hostConfigId });
    },
  );

  it('stamps the theme into hostContext (light by default), and takes a theme only with a template', async () => {
    const light = await call('POST', hostsPath(), { name: 'light', template: 'claude' });
    expect(light.body.config.hostContext.theme).toBe('light');
    const dark = await call('POST', hostsPath(), { name: 'dark', template: 'claude', theme: 'dark' });
    expect(dark.body.config.hostContext.theme).toBe('dark');
    expect(dark.body.hostConfigId).not.toBe(light.body.hostConfigId);
    expect(await call('POST', hostsPath(), { name: 'x', template: 'claude', theme: 'dim' })).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_ERROR' },
    });
    expect(await call('POST', hostsPath(), { name: 'x', config: exampleConfig(), theme: 'dark' })).toMatchObject({
      status: 400,
      body: { message: expect.stringContaining('theme') },
    });
  });

  it("keeps the real product's example config whole: every key comes back unchanged, header values redacted", async () => {
    const config = exampleConfig();
    config.serverIds = [serverId];
    config.connectionDefaults.headers = { Authorization: 'Bearer example-SECRET-8812' };
    const body = { name: 'Claude (v2)', config };
    expectReference('HostCreateRequest', body);
    const created = await call('POST', hostsPath(), body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const expected = {
      ...config,
      connectionDefaults: { ...config.connectionDefaults, headers: { Authorization: '[redacted]' } },
    };
    expect(created.body.config).toEqual(expected);
    const read = await call('GET', `${hostsPath()}/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body.config).toEqual(expected);
    // Byte for byte, keys sorted: nothing added, dropped, rounded or re-typed at any depth.
    expect(JSON.stringify(sortKeys(read.body.config))).toBe(JSON.stringify(sortKeys(expected)));
    expectReference('HostDetail', read.body);
    expect(JSON.stringify(read.body)).not.toContain('example-SECRET-8812');
    expect(await findHostHeaders(stack.sql, stack.box, org.projectId, created.body.id)).toEqual({
      Authorization: 'Bearer example-SECRET-8812',
    });

    const item = (await call('GET', hostsPath())).body.items.find((h: { id: string }) => h.id === created.body.id);
    expect(item).toEqual({
      id: created.body.id,
      name: 'Claude (v2)',
      hostConfigId: expectedConfigId(expected),
      modelId: 'anthropic/claude-haiku-4.5',
      serverCount: 1,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    // What Runway's MCP client takes from it in an eval run: the identity under mcpProfile.initialize.
    expect(hostClientProfile(read.body.config)).toEqual({ clientInfo: { name: 'claude-ai', version: '0.1.0' } });

    // Read, change one thing, write back: the secret stays, everything else is what was sent.
    const edited = structuredClone(read.body.config);
    edited.hostContext.theme = 'dark';
    const patched = await call('PATCH', `${hostsPath()}/${created.body.id}`, { config: edited });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.config).toEqual(edited);
    expect(await findHostHeaders(stack.sql, stack.box, org.projectId, created.body.id)).toEqual({
      Authorization: 'Bearer example-SECRET-8812',
    });
  });

  describe('hostConfigId', () => {
    it('is the documented content address: equal configs, equal ids; any change, another id; header values never in it', async () => {
      const config = exampleConfig();
      const a = await call('POST', hostsPath(), {
        name: 'a',
        config: { ...config, connectionDefaults: { headers: { 'X-Key': 'value-one' }, requestTimeout: 10_000 } },
      });
      // The same config, keys in another order, another header value.
      const reordered = Object.fromEntries(
        Object.entries({
          ...config,
          connectionDefaults: { requestTimeout: 10_000, headers: { 'X-Key': 'value-two' } },
        }).reverse(),
      );
      const b = await call('POST', hostsPath(), { name: 'b', config: reordered });
      expect([a.status, b.status]).toEqual([201, 201]);
      expect(a.body.hostConfigId).toMatch(/^hcfg_[A-Za-z0-9_-]{43}$/);
      expect(b.body.hostConfigId).toBe(a.body.hostConfigId);
      expect(a.body.hostConfigId).toBe(expectedConfigId(a.body.config));

      const c = await call('POST', hostsPath(), { name: 'c', config: { ...config, temperature: 0.5 } });
      expect(c.body.hostConfigId).not.toBe(a.body.hostConfigId);
      // A rename keeps it; a config change gives the new config's id.
      const renamed = await call('PATCH', `${hostsPath()}/${a.body.id}`, { name: 'a2' });
      expect(renamed.body.hostConfigId).toBe(a.body.hostConfigId);
      const changed = await call('PATCH', `${hostsPath()}/${a.body.id}`, { config: c.body.config });
      expect(changed.body.hostConfigId).toBe(c.body.hostConfigId);
    });
  });

  describe('the config is open: Runway checks only what it uses', () => {
    it('keeps unknown keys at every depth, and takes an empty modelId', async () => {
      const config = {
        modelId: '',
        futureFeature: { nested: [1, 'two', { three: null }], flag: false },
        // No headers: none are added.
        connectionDefaults: { requestTimeout: 5000, keepAlive: true },
        clientCapabilities: { roots: { listChanged: true, watch: 'x' }, experimental: { 'acme/beta': { on: 1 } } },
        mcpProfile: {
          profileVersion: 2,
          initialize: { clientInfo: { name: 'acme', version: '9', icons: [{ src: 'https://acme.test/i.png' }] } },
          extra: [],
        },
        big: 1e21,
        precise: 0.1,
      };
      const created = await call('POST', hostsPath(), { name: 'open', config });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body.config).toEqual(config);
      expect((await call('GET', `${hostsPath()}/${created.body.id}`)).body.config).toEqual(config);
      const item = (await call('GET', hostsPath())).body.items.find((h: { id: string }) => h.id === created.body.id);
      expect(item).toMatchObject({ modelId: '', serverCount: 0 });

      // Keys that mean something to JavaScript are data like any other.
      const odd = '{"name":"odd","config":{"modelId":"m","__proto__":{"polluted":true},"constructor":{"prototype":1}}}';
      const oddCreated = await call('POST', hostsPath(), odd);
      expect(oddCreated.status, JSON.stringify(oddCreated.body)).toBe(201);
      const oddRead = await call('GET', `${hostsPath()}/${oddCreated.body.id}`);
      expect(Object.keys(oddRead.body.config)).toEqual(expect.arrayContaining(['modelId', '__proto__', 'constructor']));
      expect(oddRead.body.config).toEqual(JSON.parse(odd).config);
      expect(({} as Config).polluted).toBeUndefined();

      const minimal = await call('POST', hostsPath(), { name: 'minimal', config: { hostStyle: 'custom' } });
      expect(minimal.status, JSON.stringify(minimal.body)).toBe(201);
      expect(minimal.body.config).toEqual({ hostStyle: 'custom' });
      expect(
        (await call('GET', hostsPath())).body.items.find((h: { id: string }) => h.id === minimal.body.id),
      ).toMatchObject({ modelId: '', serverCount: 0 });
    });

    it.each([
      ['neither template nor config', { name: 'x' }, /exactly one of template/],
      ['both template and config', { name: 'x', template: 'claude', config: exampleConfig() }, /not both/],
      ['an empty config', { name: 'x', config: {} }, /exactly one of template/],
      ['a config that is not an object', { name: 'x', config: ['modelId'] }, /config/],
      ['an unknown template', { name: 'x', template: 'netscape' }, /template/],
      ['no name', { template: 'claude' }, /name/],
      ['an unknown body field', { name: 'x', template: 'claude', themes: 'dark' }, /did you mean `theme`/],
      ['a modelId that is not a string', { name: 'x', config: { ...exampleConfig(), modelId: 5 } }, /config\.modelId/],
      [
        'serverIds that are not ids',
        { name: 'x', config: { ...exampleConfig(), serverIds: 'all' } },
        /config\.serverIds/,
      ],
      [
        'a server of no such id',
        { name: 'x', config: { ...exampleConfig(), serverIds: ['srv_elsewhere'] } },
        /no such server in this project: srv_elsewhere/,
      ],
      [
        'a fractional requestTimeout',
        { name: 'x', config: { ...exampleConfig(), connectionDefaults: { headers: {}, requestTimeout: 1500.5 } } },
        /requestTimeout/,
      ],
      [
        'a requestTimeout as text',
        { name: 'x', config: { ...exampleConfig(), connectionDefaults: { headers: {}, requestTimeout: '10s' } } },
        /requestTimeout/,
      ],
      [
        'a header value that is not text',
        { name: 'x', config: { ...exampleConfig(), connectionDefaults: { headers: { 'X-A': 1 } } } },
        /headers/,
      ],
      [
        'a header the transport sets',
        { name: 'x', config: { ...exampleConfig(), connectionDefaults: { headers: { 'Mcp-Session-Id': 'a' } } } },
        /managed by the transport/,
      ],
      [
        'a clientInfo without version',
        { name: 'x', config: { mcpProfile: { initialize: { clientInfo: { name: 'c' } } } } },
        /clientInfo\.version/,
      ],
      [
        'protocol versions that are not a list',
        { name: 'x', config: { mcpProfile: { initialize: { supportedProtocolVersions: '2025-06-18' } } } },
        /supportedProtocolVersions/,
      ],
      [
        'a capability that is not an object',
        { name: 'x', config: { clientCapabilities: { sampling: true } } },
        /clientCapabilities\.sampling/,
      ],
    ])('refuses %s with 400 and writes nothing', async (_label, body, message) => {
      const before = await stack.sql`SELECT count(*)::int AS n FROM hosts`;
      const reply = await call('POST', hostsPath(), body);
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringMatching(message) });
      expect(await stack.sql`SELECT count(*)::int AS n FROM hosts`).toEqual(before);
    });
  });

  describe('header values are secrets', () => {
    const secret = 'host-header-SECRET-5772';
    const withHeaders = (headers: Record<string, string>): Config => {
      const config = templateConfig('mcpjam');
      return { ...config, connectionDefaults: { ...config.connectionDefaults, headers } };
    };

    it('are stored encrypted and returned as [redacted]', async () => {
      const created = await call('POST', hostsPath(), {
        name: 'with a key',
        config: withHeaders({ 'X-Api-Key': secret, 'X-Team': 'blue' }),
      });
      expect(created.status).toBe(201);
      expect(created.body.config.connectionDefaults.headers).toEqual({
        'X-Api-Key': '[redacted]',
        'X-Team': '[redacted]',
      });
      const read = await call('GET', `${hostsPath()}/${created.body.id}`);
      expect(read.body.config.connectionDefaults.headers).toEqual({
        'X-Api-Key': '[redacted]',
        'X-Team': '[redacted]',
      });
      expect(JSON.stringify([created.body, read.body, (await call('GET', hostsPath())).body])).not.toContain(secret);

      const [row] = await stack.sql`SELECT to_jsonb(hosts)::text AS text FROM hosts WHERE id = ${created.body.id}`;
      expect(row.text).not.toContain(secret);
      expect(row.text).not.toContain('blue');
      expect(await findHostHeaders(stack.sql, stack.box, org.projectId, created.body.id)).toEqual({
        'X-Api-Key': secret,
        'X-Team': 'blue',
      });
    });

    it('a PATCH keeps a [redacted] value, replaces a new one, drops a missing one; a rename keeps them all', async () => {
      const created = await call('POST', hostsPath(), {
        name: 'rw',
        config: withHeaders({ 'X-Api-Key': secret, 'X-Team': 'blue', 'X-Old': 'gone' }),
      });
      const hostPath = `${hostsPath()}/${created.body.id}`;
      const read = await call('GET', hostPath);
      const edited = structuredClone(read.body.config);
      edited.temperature = 0.1;
      edited.connectionDefaults.headers = { 'X-Api-Key': '[redacted]', 'X-Team': 'green' };
      const patched = await call('PATCH', hostPath, { config: edited });
      expect(patched.status).toBe(200);
      expect(patched.body.config).toEqual({
        ...edited,
        connectionDefaults: {
          ...edited.connectionDefaults,
          headers: { 'X-Api-Key': '[redacted]', 'X-Team': '[redacted]' },
        },
      });
      expect(await findHostHeaders(stack.sql, stack.box, org.projectId, created.body.id)).toEqual({
        'X-Api-Key': secret,
        'X-Team': 'green',
      });

      expect((await call('PATCH', hostPath, { name: 'renamed' })).status).toBe(200);
      expect(await findHostHeaders(stack.sql, stack.box, org.projectId, created.body.id)).toEqual({
        'X-Api-Key': secret,
        'X-Team': 'green',
      });

      // Header names are case-insensitive: the stored value is kept under the name the PATCH gives.
      edited.connectionDefaults.headers = { 'x-api-key': '[redacted]' };
      expect((await call('PATCH', hostPath, { config: edited })).status).toBe(200);
      expect(await findHostHeaders(stack.sql, stack.box, org.projectId, created.body.id)).toEqual({
        'x-api-key': secret,
      });

      // A config without headers (or without connectionDefaults) keeps none, and gains no key it was not given.
      const { connectionDefaults: _dropped, ...withoutDefaults } = edited;
      const bare = await call('PATCH', hostPath, { config: withoutDefaults });
      expect(bare.body.config).toEqual(withoutDefaults);
      expect(await findHostHeaders(stack.sql, stack.box, org.projectId, created.body.id)).toEqual({});
    });

    it('[redacted] for a header with no stored value is 400 and changes nothing', async () => {
      const created = await call('POST', hostsPath(), { name: 'strict', config: withHeaders({ 'X-Api-Key': secret }) });
      const hostPath = `${hostsPath()}/${created.body.id}`;
      const patched = await call('PATCH', hostPath, {
        config: withHeaders({ 'X-Api-Key': '[redacted]', 'X-Other': '[redacted]' }),
      });
      expect(patched.status).toBe(400);
      expect(patched.body).toMatchObject({
        code: 'VALIDATION_ERROR',
        message: expect.stringContaining('X-Other'),
        details: { headers: ['X-Other'] },
      });
      expect(await findHostHeaders(stack.sql, stack.box, org.projectId, created.body.id)).toEqual({
        'X-Api-Key': secret,
      });

      const copy = await call('POST', hostsPath(), {
        name: 'copy',
        config: withHeaders({ 'X-Api-Key': '[redacted]' }),
      });
      expect(copy).toMatchObject({
        status: 400,
        body: { code: 'VALIDATION_ERROR', details: { headers: ['X-Api-Key'] } },
      });
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

  describe('configs saved before v2', () => {
    /** A config in the shape Runway stored before v2 (identity at the top level, requestTimeoutMs). */
    const legacyConfig = (): Config => ({
      hostStyle: 'claude',
      modelId: 'anthropic/claude-sonnet-4-5',
      systemPrompt: 'be brief',
      temperature: 1,
      requireToolApproval: true,
      serverIds: [],
      clientInfo: { name: 'claude-ai', version: '0.1.0' },
      protocolVersions: ['2025-11-25', '2025-06-18'],
      clientCapabilities: { elicitation: {} },
      connectionDefaults: { headers: { 'X-Api-Key': '[redacted]' }, requestTimeoutMs: 60_000 },
      transports: ['streamable-http'],
      roots: [{ uri: 'file:///work' }],
    });
    const insertLegacy = async (id: string) => {
      await stack.sql`
        INSERT INTO hosts (id, project_id, name, config, headers_enc)
        VALUES (${id}, ${org.projectId}, 'old', ${stack.sql.json(legacyConfig() as never)}, ${stack.box.encryptJson({ 'X-Api-Key': 'old-SECRET' })})`;
    };

    it('still read, list, declare their profile and take a read-modify-write', async () => {
      await insertLegacy('host_v1_kept');
      const read = await call('GET', `${hostsPath()}/host_v1_kept`);
      expect(read.status).toBe(200);
      expect(read.body.config).toEqual(legacyConfig());
      expect(
        (await call('GET', hostsPath())).body.items.find((h: { id: string }) => h.id === 'host_v1_kept'),
      ).toMatchObject({ modelId: 'anthropic/claude-sonnet-4-5', serverCount: 0 });
      expect(hostClientProfile(read.body.config)).toEqual({
        clientInfo: { name: 'claude-ai', version: '0.1.0' },
        elicitation: {},
        roots: [{ uri: 'file:///work' }],
      });
      const patched = await call('PATCH', `${hostsPath()}/host_v1_kept`, {
        config: { ...read.body.config, temperature: 0.2 },
      });
      expect(patched.status, JSON.stringify(patched.body)).toBe(200);
      expect(patched.body.config).toEqual({ ...legacyConfig(), temperature: 0.2 });
      expect(await findHostHeaders(stack.sql, stack.box, org.projectId, 'host_v1_kept')).toEqual({
        'X-Api-Key': 'old-SECRET',
      });
    });

    it('migration 031 moves their identity and timeout to the v2 places and keeps everything else', async () => {
      await insertLegacy('host_v1_moved');
      const v2 = exampleConfig();
      const [{ id: v2Id }] = await stack.sql`
        INSERT INTO hosts (id, project_id, name, config) VALUES ('host_v2_untouched', ${org.projectId}, 'v2', ${stack.sql.json(v2 as never)}) RETURNING id`;
      await stack.sql.unsafe(
        readFileSync(new URL('../../db/migrations/031_host_config_v2.sql', import.meta.url), 'utf8'),
      );

      const { clientInfo, protocolVersions, connectionDefaults, ...rest } = legacyConfig();
      const moved = (await call('GET', `${hostsPath()}/host_v1_moved`)).body.config;
      expect(moved).toEqual({
        ...rest,
        connectionDefaults: { headers: connectionDefaults.headers, requestTimeout: 60_000 },
        mcpProfile: { profileVersion: 1, initialize: { clientInfo, supportedProtocolVersions: protocolVersions } },
      });
      expect(hostClientProfile(moved)).toEqual(hostClientProfile(legacyConfig()));
      expect(await findHostHeaders(stack.sql, stack.box, org.projectId, 'host_v1_moved')).toEqual({
        'X-Api-Key': 'old-SECRET',
      });
      expect((await call('GET', `${hostsPath()}/${v2Id}`)).body.config).toEqual(v2);
    });
  });

  it('creates from a full config, lists, edits, and deletes', async () => {
    const config = { ...templateConfig('cursor'), modelId: 'openai/gpt-4.1-mini', serverIds: [serverId] };
    const created = await call('POST', hostsPath(), { name: 'Custom', config });
    expect(created.status).toBe(201);
    const hostId = created.body.id;

    const list = await call('GET', hostsPath());
    expect(list.body.items).toContainEqual({
      id: hostId,
      name: 'Custom',
      hostConfigId: created.body.hostConfigId,
      modelId: 'openai/gpt-4.1-mini',
      serverCount: 1,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });

    const renamed = await call('PATCH', `${hostsPath()}/${hostId}`, { name: 'Renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Renamed', config });

    const replaced = await call('PATCH', `${hostsPath()}/${hostId}`, { config: templateConfig('claude') });
    expect(replaced.body).toMatchObject({ name: 'Renamed', config: templateConfig('claude') });

    const deleted = await call('DELETE', `${hostsPath()}/${hostId}`);
    expect(deleted).toMatchObject({ status: 200, body: { id: hostId, deleted: true } });
    expectReference('HostDeleted', deleted.body);
    expect((await call('GET', `${hostsPath()}/${hostId}`)).status).toBe(404);
    expect((await call('DELETE', `${hostsPath()}/${hostId}`)).status).toBe(404);
  });

  it('DELETE takes no body fields: any field is 400 and the host stays', async () => {
    const created = await call('POST', hostsPath(), { name: 'keep', template: 'n8n' });
    const hostPath = `${hostsPath()}/${created.body.id}`;
    for (const body of [{ force: true }, { id: created.body.id }, { name: 'keep' }]) {
      const reply = await call('DELETE', hostPath, body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body).toMatchObject({ code: 'VALIDATION_ERROR', details: { reason: 'UNKNOWN_FIELD' } });
    }
    expect((await call('GET', hostPath)).status).toBe(200);
    expect(await call('DELETE', hostPath, {})).toMatchObject({
      status: 200,
      body: { id: created.body.id, deleted: true },
    });
  });

  it('PATCH needs at least one field', async () => {
    const created = await call('POST', hostsPath(), { name: 'p', template: 'codex' });
    const reply = await call('PATCH', `${hostsPath()}/${created.body.id}`, {});
    expect(reply.status).toBe(400);
  });

  it('another organization cannot see, edit or delete the hosts (404)', async () => {
    const created = await call('POST', hostsPath(), { name: 'mine', template: 'vscode' });
    const intruder = apiClient(stack.baseUrl, (await seedOrganization(stack.sql)).apiKey);
    const paths = [hostsPath(), `${hostsPath()}/${created.body.id}`];
    expect((await intruder('GET', paths[0])).status).toBe(404);
    expect((await intruder('POST', paths[0], { name: 'x', template: 'claude' })).status).toBe(404);
    expect((await intruder('GET', paths[1])).status).toBe(404);
    expect((await intruder('PATCH', paths[1], { name: 'pwned' })).status).toBe(404);
    expect((await intruder('DELETE', paths[1])).status).toBe(404);
    expect((await call('GET', paths[1])).body.name).toBe('mine');
  });
});

/** The same value with object keys sorted at every depth (jsonb keeps no key order). */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys((value as Config)[k])]),
    );
  return value;
}
