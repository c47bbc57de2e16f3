import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { forwardableHeaders, isLoopbackPeer, upstreamHeaders } from '../../domain/mcp/conformance/bridge.js';
import { parseServerRequirements } from '../../domain/mcp/conformance/requirements.js';
import { assembleScenarios, parseChecks, scenarioOfResultDir } from '../../domain/mcp/conformance/results.js';
import { scoreScenarios } from '../../domain/mcp/conformance/score.js';
import { MAX_CHECKS_FILE_BYTES, notCheckable, readResults } from '../../domain/mcp/conformance/runner.js';
import { conformanceNodeBinary } from '../../runtime/nodeBinary.js';

/** A requirement file as the suite's package ships them (requirements/<revision>.yaml), cut down. */
const REQUIREMENTS = `
server:
  - server-initialize
  - tools-call-image
  - ping
client:
  - initialize
not_scored:
  - scenario: auth/dpop
    leg: client
    reason: extension
  - scenario: json-schema-2020-12
    leg: server
    reason: pending
    note: >-
      the reference fixture cannot pass it yet
  - scenario: server-session-lifecycle
    leg: server
    reason: added-after-release
`;

const check = (over: Record<string, unknown>) => ({
  id: 'some-check',
  name: 'SomeCheck',
  description: 'a check',
  status: 'SUCCESS',
  timestamp: '2026-11-29T05:30:51.815Z',
  specReferences: [{ id: 'MCP-Tools-Call', url: 'https://modelcontextprotocol.io/specification' }],
  ...over,
});

describe('requirement sets', () => {
  it('lists the server leg: scored scenarios in order, and the not-scored ones with their reason and note', () => {
    expect(parseServerRequirements(REQUIREMENTS)).toEqual({
      scored: ['server-initialize', 'tools-call-image', 'ping'],
      notScored: [
        { scenario: 'json-schema-2020-12', reason: 'pending', note: 'the reference fixture cannot pass it yet' },
        { scenario: 'server-session-lifecycle', reason: 'added-after-release', note: null },
      ],
    });
  });

  it('refuses a file that is not a requirement set', () => {
    expect(() => parseServerRequirements('server: 3')).toThrow();
  });
});

describe('the suite results', () => {
  it('names the scenario of a results folder, and nothing else', () => {
    expect(scenarioOfResultDir('server-tools-call-image-2026-11-29T05-30-51-787Z')).toBe('tools-call-image');
    expect(scenarioOfResultDir('server-ping-2026-11-29T05-30-51-599Z')).toBe('ping');
    expect(scenarioOfResultDir('client-ping-2026-11-29T05-30-51-599Z')).toBeUndefined();
    expect(scenarioOfResultDir('server-ping')).toBeUndefined();
  });

  it("maps each status and keeps the suite's message for failures and warnings only", () => {
    const checks = parseChecks(
      JSON.stringify([
        check({ id: 'a', status: 'SUCCESS', errorMessage: 'ignored' }),
        check({ id: 'b', status: 'FAILURE', errorMessage: 'No image content found', details: { hasData: false } }),
        check({ id: 'c', status: 'WARNING', errorMessage: 'odd' }),
        check({ id: 'd', status: 'SKIPPED' }),
        check({ id: 'e', status: 'INFO' }),
      ]),
    );
    expect(checks.map((c) => [c.id, c.status, c.message])).toEqual([
      ['a', 'passed', null],
      ['b', 'failed', 'No image content found'],
      ['c', 'warning', 'odd'],
      ['d', 'skipped', null],
      ['e', 'info', null],
    ]);
    expect(checks[1]).toEqual({
      id: 'b',
      name: 'SomeCheck',
      description: 'a check',
      status: 'failed',
      message: 'No image content found',
      specReferences: [{ id: 'MCP-Tools-Call', url: 'https://modelcontextprotocol.io/specification' }],
    });
  });

  it('cuts a long message', () => {
    const [parsed] = parseChecks(JSON.stringify([check({ status: 'FAILURE', errorMessage: 'x'.repeat(5000) })]));
    expect(parsed.message!.length).toBe(2001);
  });

  it('refuses a checks.json that is not the suite format', () => {
    expect(() => parseChecks(JSON.stringify([{ id: 'a', status: 'MAYBE' }]))).toThrow();
    expect(() => parseChecks('{')).toThrow();
  });

  it('builds every scenario of the set: passed, failed, not applicable, unreadable; scored or with its reason', () => {
    const requirements = parseServerRequirements(REQUIREMENTS);
    const results = new Map([
      ['server-initialize', { checks: parseChecks(JSON.stringify([check({}), check({ status: 'WARNING' })])) }],
      ['tools-call-image', { checks: parseChecks(JSON.stringify([check({}), check({ status: 'FAILURE' })])) }],
      ['json-schema-2020-12', { unreadable: 'the suite could not run the scenario: boom' }],
      ['not-in-the-set', { checks: [] }],
    ]);
    const scenarios = assembleScenarios(requirements, results);
    expect(scenarios.map((s) => [s.name, s.scored, s.notScoredReason, s.status])).toEqual([
      ['server-initialize', true, null, 'passed'],
      ['tools-call-image', true, null, 'failed'],
      ['ping', true, null, 'not_applicable'],
      ['json-schema-2020-12', false, 'pending: the reference fixture cannot pass it yet', 'failed'],
      ['server-session-lifecycle', false, 'added-after-release', 'not_applicable'],
    ]);
    expect(scenarios[3].checks).toEqual([
      expect.objectContaining({ status: 'failed', message: 'the suite could not run the scenario: boom' }),
    ]);
  });
});

describe('the results folder', () => {
  it("reads each scenario's checks, and says why one could not be read", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'runway-results-test-'));
    try {
      const folder = (name: string, checks?: string) => {
        mkdirSync(join(dir, name));
        if (checks !== undefined) writeFileSync(join(dir, name, 'checks.json'), checks);
      };
      folder('server-ping-2026-11-29T05-30-51-599Z', JSON.stringify([check({ id: 'ping' })]));
      folder('server-tasks-lifecycle-2026-11-29T05-30-52-000Z');
      folder('server-tools-list-2026-11-29T05-30-53-000Z', '{"not":"checks"}');
      folder('server-tools-call-image-2026-11-29T05-30-54-000Z', `[${' '.repeat(MAX_CHECKS_FILE_BYTES)}]`);
      folder('something-else');
      const results = await readResults(
        dir,
        new Map([['tasks-lifecycle', 'Et [JsonRpcError]: Server not initialized']]),
      );
      expect([...results.keys()].sort()).toEqual(['ping', 'tasks-lifecycle', 'tools-call-image', 'tools-list']);
      expect(results.get('ping')).toEqual({ checks: [expect.objectContaining({ id: 'ping', status: 'passed' })] });
      expect(results.get('tasks-lifecycle')).toEqual({
        unreadable: 'the suite could not run the scenario: Et [JsonRpcError]: Server not initialized',
      });
      expect(results.get('tools-list')).toEqual({ unreadable: expect.stringMatching(/not in its format/) });
      expect(results.get('tools-call-image')).toEqual({ unreadable: expect.stringMatching(/larger than/) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the score', () => {
  it('is 100 × passed scored scenarios ÷ scored scenarios run, rounded down, counting their checks', () => {
    const requirements = parseServerRequirements(REQUIREMENTS);
    const results = new Map([
      ['server-initialize', { checks: parseChecks(JSON.stringify([check({}), check({})])) }],
      ['tools-call-image', { checks: parseChecks(JSON.stringify([check({}), check({ status: 'FAILURE' })])) }],
      ['ping', { checks: parseChecks(JSON.stringify([check({})])) }],
      // not scored: its failure does not count
      ['json-schema-2020-12', { checks: parseChecks(JSON.stringify([check({ status: 'FAILURE' })])) }],
    ]);
    const score = scoreScenarios(assembleScenarios(requirements, results));
    expect(score).toMatchObject({
      value: 66,
      passedScenarios: 2,
      scoredScenarios: 3,
      passedChecks: 4,
      failedChecks: 1,
    });
    expect(score.method).toMatch(/rounded down/);
  });

  it('leaves not-applicable scenarios out, and is 0 when no scored scenario ran', () => {
    const requirements = parseServerRequirements(REQUIREMENTS);
    const passed = new Map([['ping', { checks: parseChecks(JSON.stringify([check({})])) }]]);
    expect(scoreScenarios(assembleScenarios(requirements, passed))).toMatchObject({ value: 100, scoredScenarios: 1 });
    expect(scoreScenarios(assembleScenarios(requirements, new Map()))).toMatchObject({ value: 0, scoredScenarios: 0 });
  });
});

describe('the bridge headers', () => {
  const target = new URL('https://mcp.example.com:8443/mcp');
  const bridge = { host: ['127.0.0.1:5555', 'localhost:5555'], origin: ['http://127.0.0.1:5555'] };

  it("puts the server's host and origin for the bridge's own, and passes a foreign one unchanged", () => {
    expect(
      upstreamHeaders({ host: '127.0.0.1:5555', origin: 'http://127.0.0.1:5555' }, bridge, target, {}),
    ).toMatchObject({ host: 'mcp.example.com:8443', origin: 'https://mcp.example.com:8443' });
    expect(
      upstreamHeaders({ host: 'evil.example.com', origin: 'http://evil.example.com' }, bridge, target, {}),
    ).toMatchObject({ host: 'evil.example.com', origin: 'http://evil.example.com' });
  });

  it('drops hop-by-hop headers and those the Connection header names; injected headers win', () => {
    const headers = upstreamHeaders(
      {
        host: 'localhost:5555',
        connection: 'keep-alive, x-private',
        'keep-alive': 'timeout=5',
        'x-private': 'secret',
        'transfer-encoding': 'chunked',
        'proxy-authorization': 'Basic x',
        authorization: 'Bearer from-the-suite',
        'mcp-session-id': 'abc',
      },
      bridge,
      target,
      { Authorization: 'Bearer saved', 'X-Api-Key': 'k' },
    );
    expect(headers).toEqual({
      host: 'mcp.example.com:8443',
      authorization: 'Bearer saved',
      'x-api-key': 'k',
      'mcp-session-id': 'abc',
    });
    expect(forwardableHeaders({ 'content-type': 'text/event-stream', 'transfer-encoding': 'chunked' })).toEqual({
      'content-type': 'text/event-stream',
    });
  });

  it('serves loopback peers only', () => {
    expect(isLoopbackPeer('127.0.0.1')).toBe(true);
    expect(isLoopbackPeer('::ffff:127.0.0.1')).toBe(true);
    expect(isLoopbackPeer('::1')).toBe(true);
    expect(isLoopbackPeer('10.0.0.2')).toBe(false);
    expect(isLoopbackPeer('192.168.1.9')).toBe(false);
    expect(isLoopbackPeer(undefined)).toBe(false);
  });
});

describe('what can be checked', () => {
  it('refuses stdio and legacy SSE servers with 422 FEATURE_NOT_SUPPORTED, saying why', () => {
    expect(notCheckable({ name: 'local', transportType: 'http' })).toBeUndefined();
    const stdio = notCheckable({ name: 'local', transportType: 'stdio' });
    expect(stdio).toMatchObject({ code: 'FEATURE_NOT_SUPPORTED', details: { reason: 'TRANSPORT_NOT_CHECKABLE' } });
    expect(stdio!.message).toMatch(/stdio.*Streamable HTTP only/);
    expect(notCheckable({ name: 'old', transportType: 'sse' })!.message).toMatch(/legacy HTTP\+SSE/);
  });

  it("runs the suite on this process's Node when it is 22 or later, else the configured binary", () => {
    const tools = { XDG_CACHE_HOME: '/nonexistent-cache' };
    expect(conformanceNodeBinary({}, tools, { execPath: '/usr/bin/node24', version: 'v24.1.0' })).toBe(
      '/usr/bin/node24',
    );
    expect(
      conformanceNodeBinary(
        { CONFORMANCE_NODE_PATH: '/opt/node22' },
        { ...tools, NODE22_PATH: '/x' },
        {
          execPath: '/usr/bin/node20',
          version: 'v20.19.0',
        },
      ),
    ).toBe('/opt/node22');
    expect(conformanceNodeBinary({}, { ...tools, NODE22_PATH: '/x' }, { execPath: 'n', version: 'v20.1.0' })).toBe(
      '/x',
    );
    expect(conformanceNodeBinary({}, tools, { execPath: 'n', version: 'v20.1.0' })).toBeUndefined();
  });
});
