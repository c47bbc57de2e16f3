import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  hostTemplateIds,
  hostTemplates,
  isHostTemplateId,
  templateConfig,
  type HostTemplateId,
} from '../../api/hostTemplates.js';
import {
  createHostBody,
  hostConfigSchema,
  hostDetailSchema,
  hostListSchema,
  updateHostBody,
} from '../../api/schemas/hosts.js';

const CONTRACT_IDS = [
  'mcpjam',
  'claude',
  'claude-code',
  'chatgpt',
  'mistral',
  'cursor',
  'codex',
  'copilot',
  'vscode',
  'agentcore',
  'n8n',
  'perplexity',
];

/** The real product's Claude template output, the shape every template follows. */
const example = JSON.parse(
  readFileSync(new URL('../fixtures/reference/host-config-v2-claude.json', import.meta.url), 'utf8'),
);

const messages = (result: { success: boolean; error?: z.ZodError }) =>
  (result.error?.issues ?? []).map((i) => `${i.path.join('.')}: ${i.message}`).join(' | ');

type Config = Record<string, any>;

describe('host templates', () => {
  it('has exactly the contract ids, in order', () => {
    expect([...hostTemplateIds]).toEqual(CONTRACT_IDS);
    expect(Object.keys(hostTemplates).sort()).toEqual([...CONTRACT_IDS].sort());
  });

  it.each(hostTemplateIds)('%s is a host config v2 that the HostConfig schema takes unchanged', (id) => {
    const { config, title, description } = hostTemplates[id];
    const result = hostConfigSchema.safeParse(config);
    expect(result.success, messages(result)).toBe(true);
    expect(result.data).toEqual(config);
    expect(title.length).toBeGreaterThan(0);
    expect(description.length).toBeGreaterThan(20);
    expect(config.serverIds).toEqual([]);
    expect(config.hostStyle).toBe(id);
    // The example's keys, the same types in them; identity under mcpProfile.initialize, none at the top level.
    for (const key of Object.keys(config)) expect(example, key).toHaveProperty(key);
    for (const key of [
      'hostStyle',
      'modelId',
      'systemPrompt',
      'temperature',
      'requireToolApproval',
      'respectToolVisibility',
      'progressiveToolDiscovery',
      'serverIds',
      'optionalServerIds',
      'builtInToolIds',
      'connectionDefaults',
      'clientCapabilities',
      'hostContext',
      'mcpProfile',
    ]) {
      expect(typeof (config as Config)[key], key).toBe(typeof example[key]);
    }
    expect(Object.keys(config.connectionDefaults).sort()).toEqual(Object.keys(example.connectionDefaults).sort());
    for (const key of Object.keys(config.hostContext)) expect(example.hostContext, key).toHaveProperty(key);
    expect(config.mcpProfile.profileVersion).toBe(1);
    expect(config).not.toHaveProperty('clientInfo');
    expect(config).not.toHaveProperty('protocolVersions');
  });

  it('describes distinct clients', () => {
    const configs = hostTemplateIds.map((id) => JSON.stringify(hostTemplates[id].config));
    expect(new Set(configs).size).toBe(hostTemplateIds.length);
    const clientNames = hostTemplateIds.map((id) => hostTemplates[id].config.mcpProfile.initialize.clientInfo.name);
    expect(new Set(clientNames).size).toBe(hostTemplateIds.length);
    const prompts = hostTemplateIds.map((id) => hostTemplates[id].config.systemPrompt);
    expect(new Set(prompts).size).toBe(hostTemplateIds.length);
    const titles = hostTemplateIds.map((id) => hostTemplates[id].title);
    expect(new Set(titles).size).toBe(hostTemplateIds.length);
  });

  it("uses the clientInfo names the real clients send, and the real Claude template's choices", () => {
    const name = (id: HostTemplateId) => hostTemplates[id].config.mcpProfile.initialize.clientInfo.name;
    expect(name('claude')).toBe('claude-ai');
    expect(name('claude-code')).toBe('claude-code');
    expect(name('cursor')).toBe('cursor-vscode');
    expect(name('vscode')).toBe('Visual Studio Code');
    expect(name('codex')).toBe('codex-mcp-client');
    expect(name('chatgpt')).toBe('openai-mcp');
    expect(hostTemplates.chatgpt.config.modelId).toBe('openai/gpt-5');
    expect(hostTemplates.perplexity.config.modelId).toBe('perplexity/sonar-pro');
    expect(hostTemplates.mistral.config.modelId).toBe('mistral/mistral-large-latest');
    const claude = hostTemplates.claude.config;
    for (const key of [
      'hostStyle',
      'modelId',
      'temperature',
      'requireToolApproval',
      'respectToolVisibility',
      'progressiveToolDiscovery',
      'connectionDefaults',
      'clientCapabilities',
    ]) {
      expect((claude as Config)[key], key).toEqual(example[key]);
    }
    expect(claude.mcpProfile.initialize.clientInfo).toEqual(example.mcpProfile.initialize.clientInfo);
    expect(claude.mcpProfile.apps?.uiInitialize).toEqual(example.mcpProfile.apps.uiInitialize);
  });

  it('offers protocol revisions newest first, without repeats', () => {
    for (const id of hostTemplateIds) {
      const versions = hostTemplates[id].config.mcpProfile.initialize.supportedProtocolVersions;
      expect([...new Set(versions)].sort().reverse()).toEqual(versions);
    }
  });

  it('templateConfig stamps the theme (light by default) into a copy', () => {
    expect(templateConfig('vscode').hostContext.theme).toBe('light');
    expect(templateConfig('vscode', 'dark').hostContext.theme).toBe('dark');
    expect(hostTemplates.vscode.config.hostContext.theme).toBe('light');
    const { hostContext: dark, ...restDark } = templateConfig('vscode', 'dark');
    const { hostContext: light, ...restLight } = templateConfig('vscode', 'light');
    expect(restDark).toEqual(restLight);
    expect({ ...dark, theme: 'light' }).toEqual(light);
  });

  it('templateConfig returns an independent deep copy', () => {
    const a = templateConfig('claude');
    const b = templateConfig('claude');
    expect(a).toEqual(hostTemplates.claude.config);
    expect(a).not.toBe(hostTemplates.claude.config);
    a.modelId = 'openai/gpt-5';
    a.serverIds.push('srv_1');
    a.mcpProfile.initialize.supportedProtocolVersions.length = 0;
    a.mcpProfile.initialize.clientInfo.name = 'changed';
    a.connectionDefaults.headers['X-Extra'] = '1';
    a.clientCapabilities.extensions!['io.modelcontextprotocol/ui'].changed = true;
    a.hostContext.styles.variables['--font-sans'] = 'serif';
    expect(b).toEqual(hostTemplates.claude.config);
    expect(hostTemplates.claude.config.modelId).toBe('anthropic/claude-haiku-4.5');
    expect(hostTemplates.claude.config.serverIds).toEqual([]);
    expect(hostTemplates.claude.config.mcpProfile.initialize.supportedProtocolVersions.length).toBeGreaterThan(0);
    expect(hostTemplates.claude.config.mcpProfile.initialize.clientInfo.name).toBe('claude-ai');
    expect(hostTemplates.claude.config.connectionDefaults.headers).not.toHaveProperty('X-Extra');
    expect(hostTemplates.vscode.config.clientCapabilities.extensions!['io.modelcontextprotocol/ui']).not.toHaveProperty(
      'changed',
    );
    expect(hostTemplates.mcpjam.config.hostContext.styles.variables['--font-sans']).not.toBe('serif');
  });

  it('keeps the built-in templates frozen', () => {
    expect(Object.isFrozen(hostTemplates.cursor.config.clientCapabilities)).toBe(true);
    expect(() => {
      (hostTemplates.cursor.config.serverIds as string[]).push('x');
    }).toThrow(TypeError);
  });

  it('isHostTemplateId and templateConfig reject unknown ids', () => {
    expect(isHostTemplateId('claude')).toBe(true);
    expect(isHostTemplateId('gemini')).toBe(false);
    expect(isHostTemplateId(42)).toBe(false);
    expect(() => templateConfig('gemini' as HostTemplateId)).toThrow(/unknown host template/);
  });
});

describe('HostConfig schema', () => {
  const parse = (config: unknown) => hostConfigSchema.safeParse(config);

  it("takes the real product's example and any object with a property, and keeps every key", () => {
    expect(parse(example)).toMatchObject({ success: true, data: example });
    expect(parse({ hostStyle: 'x' })).toMatchObject({ success: true, data: { hostStyle: 'x' } });
    expect(parse({ modelId: '' }).success).toBe(true);
    const open = {
      modelId: 'm',
      nested: { deep: [{ any: 'thing' }] },
      connectionDefaults: { requestTimeout: 1000, other: 1 },
      clientCapabilities: { roots: { listChanged: true, watch: true } },
    };
    expect(parse(open)).toMatchObject({ success: true, data: open });
  });

  it('checks the members Runway reads, each where it is', () => {
    const refused: [Config, RegExp][] = [
      [{}, /at least one property/],
      [{ modelId: 5 }, /^modelId/],
      [{ modelId: 'x'.repeat(201) }, /^modelId/],
      [{ serverIds: ['a', 'a'] }, /^serverIds.*repeat/],
      [{ serverIds: ['not an id'] }, /^serverIds\.0/],
      [{ serverIds: Array.from({ length: 101 }, (_, i) => `s${i}`) }, /^serverIds/],
      [{ connectionDefaults: { requestTimeout: 10 } }, /^connectionDefaults\.requestTimeout/],
      [{ connectionDefaults: { requestTimeout: 1.5e6 } }, /^connectionDefaults\.requestTimeout/],
      [{ connectionDefaults: { requestTimeout: 1500.5 } }, /^connectionDefaults\.requestTimeout/],
      [{ connectionDefaults: { headers: { 'Bad Header': 'x' } } }, /^connectionDefaults\.headers/],
      [{ connectionDefaults: { headers: { 'X-Ok': 'a\r\nInjected: 1' } } }, /^connectionDefaults\.headers\.X-Ok/],
      [{ connectionDefaults: { headers: { 'Mcp-Session-Id': 'abc' } } }, /managed by the transport/],
      [{ connectionDefaults: { headers: ['x'] } }, /^connectionDefaults\.headers/],
      [{ clientCapabilities: { roots: { listChanged: 'yes' } } }, /^clientCapabilities\.roots\.listChanged/],
      [{ clientCapabilities: { sampling: 'on' } }, /^clientCapabilities\.sampling/],
      [{ clientCapabilities: { elicitation: { form: true } } }, /^clientCapabilities\.elicitation\.form/],
      [{ mcpProfile: { initialize: { clientInfo: { name: 'c' } } } }, /^mcpProfile\.initialize\.clientInfo\.version/],
      [
        { mcpProfile: { initialize: { clientInfo: { name: 'bad\nname', version: '1' } } } },
        /^mcpProfile\.initialize\.clientInfo\.name/,
      ],
      [
        { mcpProfile: { initialize: { supportedProtocolVersions: [] } } },
        /^mcpProfile\.initialize\.supportedProtocolVersions/,
      ],
      [{ mcpProfile: { initialize: 'latest' } }, /^mcpProfile\.initialize/],
      [{ roots: [{ uri: 'https://not-a-file' }] }, /^roots\.0\.uri/],
    ];
    for (const [config, message] of refused) {
      const result = parse(config);
      expect(result.success, JSON.stringify(config)).toBe(false);
      expect(messages(result), JSON.stringify(config)).toMatch(message);
    }
  });

  it('accepts custom headers', () => {
    const result = parse({
      connectionDefaults: { headers: { Authorization: 'Bearer t', 'X-Tenant': 'acme' }, requestTimeout: 10_000 },
    });
    expect(result.success, messages(result)).toBe(true);
  });
});

describe('create host body', () => {
  it('accepts a template alone, with a theme', () => {
    const result = createHostBody.safeParse({ name: 'My Claude', template: 'claude', theme: 'dark' });
    expect(result.success, messages(result)).toBe(true);
    expect(result.data).toEqual({ name: 'My Claude', template: 'claude', theme: 'dark' });
  });

  it('accepts a full config alone', () => {
    const result = createHostBody.safeParse({ name: 'Custom', config: example });
    expect(result.success, messages(result)).toBe(true);
    expect(result.data?.config).toEqual(example);
    expect(result.data?.template).toBeUndefined();
  });

  it('accepts every template id', () => {
    for (const template of hostTemplateIds)
      expect(createHostBody.safeParse({ name: 'h', template }).success).toBe(true);
  });

  it('rejects both template and config, and a theme without a template', () => {
    const both = createHostBody.safeParse({ name: 'x', template: 'claude', config: example });
    expect(both.success).toBe(false);
    expect(messages(both)).toMatch(/either template or config, not both/);
    const theme = createHostBody.safeParse({ name: 'x', config: example, theme: 'dark' });
    expect(messages(theme)).toMatch(/theme applies to a template only/);
  });

  it('rejects neither template nor config', () => {
    for (const body of [{ name: 'x' }, { name: 'x', config: {} }, { name: 'x', config: null }]) {
      const result = createHostBody.safeParse(body);
      expect(result.success).toBe(false);
      expect(messages(result)).toMatch(/exactly one of template .* or a non-empty config/);
    }
  });

  it('treats an empty config beside a template as no config', () => {
    const result = createHostBody.safeParse({ name: 'x', template: 'cursor', config: {} });
    expect(result.success, messages(result)).toBe(true);
    expect(result.data?.config).toBeUndefined();
  });

  it('rejects an unknown template, a bad theme and a bad name; the body around the config stays strict', () => {
    expect(createHostBody.safeParse({ name: 'x', template: 'gemini' }).success).toBe(false);
    expect(createHostBody.safeParse({ name: 'x', template: 'claude', theme: 'sepia' }).success).toBe(false);
    expect(createHostBody.safeParse({ template: 'claude' }).success).toBe(false);
    expect(createHostBody.safeParse({ name: '   ', template: 'claude' }).success).toBe(false);
    expect(createHostBody.safeParse({ name: 'x'.repeat(201), template: 'claude' }).success).toBe(false);
    const unknown = createHostBody.safeParse({ name: 'x', template: 'claude', colour: 'red' });
    expect(unknown.error?.issues.map((i) => i.code)).toContain('unrecognized_keys');
  });
});

describe('update host body', () => {
  it('needs at least one field', () => {
    for (const body of [{}, { config: {} }]) {
      const result = updateHostBody.safeParse(body);
      expect(result.success).toBe(false);
      expect(messages(result)).toMatch(/at least one of name or config/);
    }
    expect(updateHostBody.safeParse({ unrelated: 1 }).success).toBe(false);
  });

  it('accepts a name, a config, or both', () => {
    expect(updateHostBody.safeParse({ name: 'Renamed' }).success).toBe(true);
    expect(updateHostBody.safeParse({ config: example }).success).toBe(true);
    expect(updateHostBody.safeParse({ name: 'Renamed', config: { temperature: 0.5 } }).success).toBe(true);
  });
});

describe('OpenAPI', () => {
  it('every host schema converts to JSON Schema for requests and replies', () => {
    for (const schema of [hostConfigSchema, createHostBody, updateHostBody]) {
      expect(() => z.toJSONSchema(schema, { io: 'input' })).not.toThrow();
    }
    for (const schema of [hostDetailSchema, hostListSchema]) {
      expect(() => z.toJSONSchema(schema, { io: 'output' })).not.toThrow();
    }
    type Defs = {
      $defs: Record<
        string,
        { required?: string[]; properties: Record<string, unknown>; additionalProperties?: unknown }
      >;
    };
    const create = (z.toJSONSchema(createHostBody, { io: 'input' }) as unknown as Defs).$defs;
    expect(create.CreateHostBody.required).toEqual(['name']);
    expect(Object.keys(create.CreateHostBody.properties)).toEqual(['name', 'template', 'config', 'theme']);
    // The config is open (any key) and requires none; the body around it is closed.
    expect(create.HostConfig.required).toBeUndefined();
    expect(create.HostConfig.additionalProperties).toEqual({});
    expect(create.CreateHostBody.additionalProperties).toBe(false);
    const list = (z.toJSONSchema(hostListSchema, { io: 'output' }) as unknown as Defs).$defs;
    expect(list.HostSummary.required).toContain('hostConfigId');
  });
});
