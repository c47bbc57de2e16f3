import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { hostTemplateIds, hostTemplates, isHostTemplateId, templateConfig, type HostTemplateId } from '../../api/hostTemplates.js';
import {
  createHostBody,
  hostConfigSchema,
  hostDetailSchema,
  hostListSchema,
  updateHostBody,
  type HostConfig,
} from '../../api/schemas/hosts.js';

const CONTRACT_IDS = ['mcpjam', 'claude', 'claude-code', 'chatgpt', 'mistral', 'cursor', 'codex', 'copilot', 'vscode', 'agentcore', 'n8n', 'perplexity'];

const validConfig = (): HostConfig => templateConfig('vscode');

const messages = (result: { success: boolean; error?: z.ZodError }) => (result.error?.issues ?? []).map((i) => i.message).join(' | ');

describe('host templates', () => {
  it('has exactly the contract ids, in order', () => {
    expect([...hostTemplateIds]).toEqual(CONTRACT_IDS);
    expect(Object.keys(hostTemplates).sort()).toEqual([...CONTRACT_IDS].sort());
  });

  it.each(hostTemplateIds)('%s parses with the HostConfig schema unchanged', (id) => {
    const { config, title, description } = hostTemplates[id];
    const result = hostConfigSchema.safeParse(config);
    expect(result.success, messages(result)).toBe(true);
    // Nothing is stripped or rewritten: the template is already in canonical form.
    expect(result.data).toEqual(config);
    expect(title.length).toBeGreaterThan(0);
    expect(description.length).toBeGreaterThan(20);
    expect(config.serverIds).toEqual([]);
    expect(config.hostStyle).toBe(id);
  });

  it('describes distinct clients', () => {
    const configs = hostTemplateIds.map((id) => JSON.stringify(hostTemplates[id].config));
    expect(new Set(configs).size).toBe(hostTemplateIds.length);
    const clientNames = hostTemplateIds.map((id) => hostTemplates[id].config.clientInfo.name);
    expect(new Set(clientNames).size).toBe(hostTemplateIds.length);
    const prompts = hostTemplateIds.map((id) => hostTemplates[id].config.systemPrompt);
    expect(new Set(prompts).size).toBe(hostTemplateIds.length);
    const titles = hostTemplateIds.map((id) => hostTemplates[id].title);
    expect(new Set(titles).size).toBe(hostTemplateIds.length);
  });

  it('uses the clientInfo names the real clients send', () => {
    const name = (id: HostTemplateId) => hostTemplates[id].config.clientInfo.name;
    expect(name('claude')).toBe('claude-ai');
    expect(name('claude-code')).toBe('claude-code');
    expect(name('cursor')).toBe('cursor-vscode');
    expect(name('vscode')).toBe('Visual Studio Code');
    expect(name('codex')).toBe('codex-mcp-client');
    expect(name('chatgpt')).toBe('openai-mcp');
    expect(hostTemplates.chatgpt.config.modelId).toBe('openai/gpt-5');
    expect(hostTemplates.perplexity.config.modelId).toBe('perplexity/sonar-pro');
    expect(hostTemplates.mistral.config.modelId).toBe('mistral/mistral-large-latest');
  });

  it('offers protocol revisions newest first', () => {
    for (const id of hostTemplateIds) {
      const versions = hostTemplates[id].config.protocolVersions;
      expect([...versions].sort().reverse()).toEqual(versions);
    }
  });

  it('templateConfig returns an independent deep copy', () => {
    const a = templateConfig('claude');
    const b = templateConfig('claude');
    expect(a).toEqual(hostTemplates.claude.config);
    expect(a).not.toBe(hostTemplates.claude.config);
    a.modelId = 'openai/gpt-5';
    a.serverIds.push('srv_1');
    a.protocolVersions.length = 0;
    a.clientInfo.name = 'changed';
    a.connectionDefaults.headers['X-Extra'] = '1';
    a.clientCapabilities.extensions!['io.modelcontextprotocol/ui'].changed = true;
    expect(b).toEqual(hostTemplates.claude.config);
    expect(hostTemplates.claude.config.modelId).toBe('anthropic/claude-sonnet-4-5');
    expect(hostTemplates.claude.config.serverIds).toEqual([]);
    expect(hostTemplates.claude.config.protocolVersions.length).toBeGreaterThan(0);
    expect(hostTemplates.claude.config.clientInfo.name).toBe('claude-ai');
    expect(hostTemplates.claude.config.connectionDefaults.headers).not.toHaveProperty('X-Extra');
    expect(hostTemplates.vscode.config.clientCapabilities.extensions!['io.modelcontextprotocol/ui']).not.toHaveProperty('changed');
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
  const withPatch = (patch: (c: Record<string, any>) => void) => {
    const c = validConfig() as Record<string, any>;
    patch(c);
    return hostConfigSchema.safeParse(c);
  };

  it('requires every core field', () => {
    for (const field of ['hostStyle', 'modelId', 'systemPrompt', 'temperature', 'requireToolApproval', 'serverIds', 'clientInfo', 'protocolVersions', 'clientCapabilities', 'connectionDefaults']) {
      expect(withPatch((c) => delete c[field]).success, field).toBe(false);
    }
    expect(withPatch((c) => delete c.connectionDefaults.headers).success).toBe(false);
    expect(withPatch((c) => delete c.connectionDefaults.requestTimeoutMs).success).toBe(false);
    expect(withPatch((c) => delete c.clientInfo.version).success).toBe(false);
  });

  it('keeps the descriptive extras optional', () => {
    expect(withPatch((c) => {
      delete c.ui;
      delete c.limits;
      delete c.transports;
      delete c.clientInfo.title;
      c.clientCapabilities = {};
    }).success).toBe(true);
  });

  it('rejects nonsense', () => {
    expect(withPatch((c) => (c.temperature = 2.5)).success).toBe(false);
    expect(withPatch((c) => (c.temperature = -0.1)).success).toBe(false);
    expect(withPatch((c) => (c.temperature = '1')).success).toBe(false);
    expect(withPatch((c) => (c.hostStyle = '')).success).toBe(false);
    expect(withPatch((c) => (c.hostStyle = 'x'.repeat(65))).success).toBe(false);
    expect(withPatch((c) => (c.modelId = 'gpt 5')).success).toBe(false);
    expect(withPatch((c) => (c.systemPrompt = 'x'.repeat(32_001))).success).toBe(false);
    expect(withPatch((c) => (c.serverIds = ['a', 'a'])).success).toBe(false);
    expect(withPatch((c) => (c.serverIds = Array.from({ length: 101 }, (_, i) => `s${i}`))).success).toBe(false);
    expect(withPatch((c) => (c.protocolVersions = [])).success).toBe(false);
    expect(withPatch((c) => (c.protocolVersions = ['latest'])).success).toBe(false);
    expect(withPatch((c) => (c.protocolVersions = ['2025-13-01'])).success).toBe(false);
    expect(withPatch((c) => (c.protocolVersions = ['2025-03-26', '2025-06-18'])).success).toBe(false);
    expect(withPatch((c) => (c.protocolVersions = ['2025-06-18', '2025-06-18'])).success).toBe(false);
    expect(withPatch((c) => (c.clientInfo.name = 'bad\nname')).success).toBe(false);
    expect(withPatch((c) => (c.clientCapabilities.roots = { listChanged: 'yes' })).success).toBe(false);
    expect(withPatch((c) => (c.clientCapabilities.sampling = 'on')).success).toBe(false);
    expect(withPatch((c) => (c.clientCapabilities.elicitation = { form: { blob: 'x'.repeat(9000) } })).success).toBe(false);
    expect(withPatch((c) => (c.clientCapabilities.extensions = { 'not an id': {} })).success).toBe(false);
    expect(withPatch((c) => (c.connectionDefaults.requestTimeoutMs = 10)).success).toBe(false);
    expect(withPatch((c) => (c.connectionDefaults.requestTimeoutMs = 1.5e6)).success).toBe(false);
    expect(withPatch((c) => (c.connectionDefaults.requestTimeoutMs = 1500.5)).success).toBe(false);
    expect(withPatch((c) => (c.connectionDefaults.headers = { 'Bad Header': 'x' })).success).toBe(false);
    expect(withPatch((c) => (c.connectionDefaults.headers = { 'X-Ok': 'a\r\nInjected: 1' })).success).toBe(false);
    expect(withPatch((c) => (c.connectionDefaults.headers = { 'Mcp-Session-Id': 'abc' })).success).toBe(false);
    expect(withPatch((c) => (c.transports = ['carrier-pigeon'])).success).toBe(false);
    expect(withPatch((c) => (c.limits = { maxTools: 0 })).success).toBe(false);
  });

  it('accepts custom headers', () => {
    const result = withPatch((c) => {
      c.connectionDefaults.headers = { Authorization: 'Bearer t', 'X-Tenant': 'acme' };
    });
    expect(result.success, messages(result)).toBe(true);
  });

  it('refuses unknown keys, at any depth, instead of dropping them', () => {
    for (const patch of [
      (c: Record<string, any>) => (c.somethingElse = true),
      (c: Record<string, any>) => (c.clientInfo.vendor = 'x'),
      (c: Record<string, any>) => (c.clientCapabilities.roots = { listChanged: true, watch: true }),
      (c: Record<string, any>) => (c.connectionDefaults.requestTimeout = 1000),
      (c: Record<string, any>) => (c.ui = { mcpApps: true, widgets: true }),
    ]) {
      const result = withPatch(patch);
      expect(result.success).toBe(false);
      expect(result.error!.issues.map((i) => i.code)).toContain('unrecognized_keys');
    }
  });
});

describe('create host body', () => {
  it('accepts a template alone', () => {
    const result = createHostBody.safeParse({ name: 'My Claude', template: 'claude' });
    expect(result.success, messages(result)).toBe(true);
    expect(result.data).toEqual({ name: 'My Claude', template: 'claude' });
  });

  it('accepts a full config alone', () => {
    const result = createHostBody.safeParse({ name: 'Custom', config: validConfig() });
    expect(result.success, messages(result)).toBe(true);
    expect(result.data?.config).toEqual(validConfig());
    expect(result.data?.template).toBeUndefined();
  });

  it('accepts every template id', () => {
    for (const template of hostTemplateIds) expect(createHostBody.safeParse({ name: 'h', template }).success).toBe(true);
  });

  it('rejects both template and config', () => {
    const result = createHostBody.safeParse({ name: 'x', template: 'claude', config: validConfig() });
    expect(result.success).toBe(false);
    expect(messages(result)).toMatch(/either template or config, not both/);
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

  it('rejects an unknown template, a partial config and a bad name', () => {
    expect(createHostBody.safeParse({ name: 'x', template: 'gemini' }).success).toBe(false);
    expect(createHostBody.safeParse({ name: 'x', config: { modelId: 'openai/gpt-5' } }).success).toBe(false);
    expect(createHostBody.safeParse({ template: 'claude' }).success).toBe(false);
    expect(createHostBody.safeParse({ name: '   ', template: 'claude' }).success).toBe(false);
    expect(createHostBody.safeParse({ name: 'x'.repeat(201), template: 'claude' }).success).toBe(false);
  });
});

describe('update host body', () => {
  it('needs at least one field', () => {
    for (const body of [{}, { config: {} }, { unrelated: 1 }]) {
      const result = updateHostBody.safeParse(body);
      expect(result.success).toBe(false);
      expect(messages(result)).toMatch(/at least one of name or config/);
    }
  });

  it('accepts a name, a full config, or both', () => {
    expect(updateHostBody.safeParse({ name: 'Renamed' }).success).toBe(true);
    expect(updateHostBody.safeParse({ config: validConfig() }).success).toBe(true);
    expect(updateHostBody.safeParse({ name: 'Renamed', config: validConfig() }).success).toBe(true);
  });

  it('rejects a partial config: config replaces the whole config', () => {
    expect(updateHostBody.safeParse({ config: { temperature: 0.5 } }).success).toBe(false);
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
    type Defs = { $defs: Record<string, { required?: string[]; properties: Record<string, unknown> }> };
    const create = (z.toJSONSchema(createHostBody, { io: 'input' }) as unknown as Defs).$defs;
    expect(create.CreateHostBody.required).toEqual(['name']);
    expect(Object.keys(create.CreateHostBody.properties)).toEqual(['name', 'template', 'config', 'theme']);
    expect(create.HostConfig.required).toEqual([
      'hostStyle', 'modelId', 'systemPrompt', 'temperature', 'requireToolApproval', 'serverIds', 'clientInfo',
      'protocolVersions', 'clientCapabilities', 'connectionDefaults',
    ]);
  });
});
