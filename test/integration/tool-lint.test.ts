/**
 * Issue 32, item 4: tool definition lint through the API. Doctor lints what it listed: the planted fixture (one
 * problem per rule) gives exactly the planted findings, and the reference server-everything none; both over stdio,
 * and the doctor reply still fits the reference OpenAPI document (`lint` is an added field).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LintFinding } from '../../domain/mcp/lint/index.js';
import { PLANTED } from '../fixtures/mcp/lint-planted.js';
import { apiClient } from '../helpers/http.js';
import { everythingOverStdio, fixtureOverStdio, saveServer } from '../helpers/mcpServers.js';
import { OpenApiReplies } from '../helpers/openApiReplies.js';
import { runway } from '../helpers/runwayCli.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

const reference = new OpenApiReplies(
  JSON.parse(readFileSync(new URL('../fixtures/reference/mcpjam-openapi-2026-06-19.json', import.meta.url), 'utf8')),
  { id: 'https://reference.invalid/mcpjam-openapi.json' },
);
const runDoctor = reference.operations().find((op) => op.operationId === 'runDoctor')!;

const planted = (f: LintFinding) => ({
  rule: f.rule,
  tool: f.tool,
  field: f.field,
  ...(f.pointer !== undefined && { pointer: f.pointer }),
  ...(f.span && { span: f.span }),
});

describe('tool lint', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  const servers: Record<string, string> = {};

  beforeAll(async () => {
    stack = await startTestStack({ worker: false, config: { HOSTED_MODELS: 'openai/hosted-mini' } });
    org = await seedOrganization(stack.sql);
    call = apiClient(stack.baseUrl, org.apiKey);
    const save = async (name: string, input: Record<string, unknown>) =>
      (servers[name] = await saveServer(stack.sql, stack.box, { projectId: org.projectId, name, ...input } as never));
    await save('planted', fixtureOverStdio('lint-planted'));
    await save('everything', everythingOverStdio());
    await save('broken', fixtureOverStdio('broken-start'));
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const doctor = (server: string) => call('POST', `/projects/${org.projectId}/servers/${servers[server]}/doctor`, {});

  it('doctor finds each planted problem, and nothing more', async () => {
    const reply = await doctor('planted');
    expect(reply.status).toBe(200);
    expect(reply.body.status, JSON.stringify(reply.body.checks)).toBe('ready');
    const { lint } = reply.body;
    expect(lint.findings.map(planted)).toEqual(PLANTED);
    expect(lint).toMatchObject({
      protocolRevision: reply.body.initInfo.protocolVersion,
      counts: { error: 4, warning: PLANTED.length - 4 },
      omitted: 0,
      incomplete: null,
    });
    const long = lint.findings.find((f: LintFinding) => f.rule === 'description-long');
    expect(long.tokens).toBeGreaterThan(1_000);
    expect(lint.findings.find((f: LintFinding) => f.rule === 'name-invalid').message).toMatch(
      /server\/tools "Tool Names"/,
    );
    expect(reference.replyProblems(runDoctor, reply.status, reply.body)).toEqual([]);
  });

  it('`runway servers doctor` prints the findings', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'runway-lint-cli-'));
    const env = { RUNWAY_URL: stack.origin, RUNWAY_API_KEY: org.apiKey };
    const doctor = await runway(['servers', 'doctor', 'planted'], env, dir);
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
    expect(doctor.stdout).toMatch(`tool lint: 4 error(s), ${PLANTED.length - 4} warning(s)`);
    expect(doctor.stdout).toMatch(/^warning\s+name-invalid\s+get user\s+name \[3-4\]/m);
    expect(doctor.stdout).toMatch(/^warning\s+hidden-unicode\s+zero_width\s+description \[17-19\]/m);
    expect(doctor.stdout).toMatch(/^error\s+schema-invalid\s+bad_input_schema\s+inputSchema \/properties\/text\/type/m);
  });

  it('doctor finds nothing in the reference server-everything', async () => {
    const reply = await doctor('everything');
    expect(reply.status).toBe(200);
    expect(reply.body.status, JSON.stringify(reply.body.checks)).toBe('ready');
    expect(reply.body.tools.length).toBeGreaterThan(5);
    expect(reply.body.lint, JSON.stringify(reply.body.lint.findings, null, 1)).toEqual({
      protocolRevision: reply.body.initInfo.protocolVersion,
      counts: { error: 0, warning: 0 },
      findings: [],
      omitted: 0,
      incomplete: null,
    });
    expect(reference.replyProblems(runDoctor, reply.status, reply.body)).toEqual([]);
  });

  it("GET /eval-suites/{s}/tool-lint: each server's findings, and the tool names two servers share", async () => {
    const created = await call('POST', `/projects/${org.projectId}/eval-suites`, {
      name: 'Lint',
      serverIds: [servers.planted, servers.everything, servers.broken],
      model: 'openai/hosted-mini',
      tests: [{ title: 'echo', query: 'echo hello', expectedToolCalls: [] }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const reply = await call('GET', `/projects/${org.projectId}/eval-suites/${created.body.suiteId}/tool-lint`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const [planted_, everything, broken] = reply.body.servers;
    expect(planted_).toMatchObject({ serverId: servers.planted, name: 'planted', status: 'listed', error: null });
    expect(planted_.lint.findings.map(planted)).toEqual(PLANTED);
    expect(everything).toMatchObject({
      name: 'everything',
      status: 'listed',
      lint: { counts: { error: 0, warning: 0 } },
    });
    expect(everything.toolCount).toBeGreaterThan(5);
    // A server that cannot be listed is reported; the others are still linted.
    expect(broken).toMatchObject({ name: 'broken', status: 'failed', lint: null, error: { code: expect.any(String) } });
    expect(reply.body.findings).toEqual([
      {
        rule: 'name-shared-across-servers',
        severity: 'warning',
        tool: 'echo',
        field: 'name',
        servers: [
          { serverId: servers.planted, name: 'planted' },
          { serverId: servers.everything, name: 'everything' },
        ],
        message: expect.stringMatching(/2 servers of the suite list a tool named "echo"/),
      },
    ]);

    const unknown = await call('GET', `/projects/${org.projectId}/eval-suites/nope/tool-lint`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('NOT_FOUND');
  });
});
