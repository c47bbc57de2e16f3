import { spawnSync } from 'node:child_process';
import type { LookupAddress } from 'node:dns';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SavedServer } from '../../domain/catalog/server.js';
import type { ConformanceReport } from '../../domain/mcp/conformance/report.js';
import { parseServerRequirements } from '../../domain/mcp/conformance/requirements.js';
import { parseChecks, scenarioOfResultDir } from '../../domain/mcp/conformance/results.js';
import {
  createConformanceRunner,
  installedSuiteDir,
  type ConformanceRunnerDeps,
} from '../../domain/mcp/conformance/runner.js';
import { OperationFailure } from '../../domain/failures.js';
import type { Credentials } from '../../domain/mcp/transports.js';
import { ensureNode } from '../../scripts/node-binary.js';
import { startEverythingOverHttp, type RunningServer } from '../helpers/mcpServers.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recordingServer.js';

/**
 * The conformance runner with the real suite package on Node 22, real processes: against the reference server
 * (the report says what the suite itself says), and against hostile servers (what reaches whom, what is killed).
 */

let node22: string;
let everything: RunningServer;
const work: string[] = [];
const servers: RecordingServer[] = [];

beforeAll(async () => {
  node22 = ensureNode(22);
  everything = await startEverythingOverHttp('streamableHttp');
});

afterAll(async () => {
  await everything?.stop();
  for (const server of servers) await server.close();
  for (const dir of work) rmSync(dir, { recursive: true, force: true });
});

const noGrants: ConformanceRunnerDeps['grants'] = {
  credentialsFor: async () => undefined,
  afterUnauthorized: async () => undefined,
};

/** A folder of the test's own: the runner's results folders go below it (and must be gone afterwards). */
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'runway-conformance-test-'));
  work.push(dir);
  return dir;
}

function savedServer(over: Partial<SavedServer>): SavedServer {
  const now = new Date();
  return {
    id: 'srv_1',
    projectId: 'prj_1',
    organizationId: 'org_1',
    name: 'under-test',
    enabled: true,
    transportType: 'http',
    url: null,
    command: null,
    args: [],
    env: {},
    cwd: null,
    headers: {},
    useOAuth: false,
    oauthScopes: [],
    oauthClientId: null,
    clientSecret: null,
    authorizationServerUrl: null,
    oauthGrant: 'caller',
    privateKey: null,
    signingAlg: null,
    timeouts: {},
    clientProfile: {},
    allowedRoots: [],
    iterationIsolation: null,
    revision: 1,
    createdAt: now,
    updatedAt: now,
    ...over,
  };
}

function runner(over: Partial<ConformanceRunnerDeps> = {}) {
  return createConformanceRunner({ grants: noGrants, nodePath: node22, requestTimeoutMs: 10_000, ...over });
}

async function recording(respond?: Parameters<typeof startRecordingServer>[0]) {
  const server = await startRecordingServer(respond);
  servers.push(server);
  return server;
}

/** Processes still running whose command line names `text` (the results folder is on the suite's). */
function processesNaming(text: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** The suite run on its own against the server: each scenario's passed/failed, from the checks it wrote. */
function suiteVerdicts(url: string, revision: string): Map<string, 'passed' | 'failed'> {
  const out = scratch();
  spawnSync(
    node22,
    [join(installedSuiteDir(), 'dist', 'index.js'), 'server', '--url', url, '--requirements', revision, '-o', out],
    { stdio: 'ignore', timeout: 120_000 },
  );
  const verdicts = new Map<string, 'passed' | 'failed'>();
  for (const dir of readdirSync(out)) {
    const scenario = scenarioOfResultDir(dir)!;
    const file = join(out, dir, 'checks.json');
    const failed = !existsSync(file) || parseChecks(readFileSync(file, 'utf8')).some((c) => c.status === 'failed');
    verdicts.set(scenario, failed ? 'failed' : 'passed');
  }
  return verdicts;
}

describe('the conformance runner against the reference server', () => {
  let report: ConformanceReport;
  let tmp: string;
  const progress: number[] = [];

  beforeAll(async () => {
    tmp = scratch();
    report = await runner({ tmpDir: tmp }).check(savedServer({ url: everything.url }), {
      specVersion: '2025-11-25',
      timeoutMs: 120_000,
      onProgress: ({ scenariosDone }) => progress.push(scenariosDone),
    });
  });

  it('reports each scenario as the suite itself judges it, run directly against the server', () => {
    const direct = suiteVerdicts(everything.url, '2025-11-25');
    expect(direct.size).toBeGreaterThan(20);
    const ran = report.scenarios.filter((s) => s.status !== 'not_applicable');
    expect(new Map(ran.map((s) => [s.name, s.status]))).toEqual(direct);
  });

  it("keeps the suite's own messages, and scores by the formula it states", () => {
    const byName = new Map(report.scenarios.map((s) => [s.name, s]));
    expect(byName.get('tools-call-simple-text')).toMatchObject({ scored: true, status: 'passed' });
    const image = byName.get('tools-call-image')!;
    expect(image).toMatchObject({ scored: true, status: 'failed' });
    expect(image.checks.find((c) => c.status === 'failed')).toMatchObject({
      id: 'tools-call-image',
      message: 'No image content found',
    });
    expect(byName.get('json-schema-2020-12')).toMatchObject({
      scored: false,
      notScoredReason: expect.stringMatching(/^pending/),
    });

    const scored = report.scenarios.filter((s) => s.scored && s.status !== 'not_applicable');
    const passed = scored.filter((s) => s.status === 'passed').length;
    expect(report.score).toMatchObject({
      value: Math.floor((100 * passed) / scored.length),
      passedScenarios: passed,
      scoredScenarios: scored.length,
      failedChecks: scored.flatMap((s) => s.checks).filter((c) => c.status === 'failed').length,
    });
    expect(report.score.value).toBeGreaterThan(0);
    expect(report.score.value).toBeLessThan(100);
    expect(report).toMatchObject({
      specVersion: '2025-11-25',
      suiteVersion: JSON.parse(readFileSync(join(installedSuiteDir(), 'package.json'), 'utf8')).version,
    });
    expect(report.notes).toBeUndefined();
  });

  it('says how far it got, and leaves no results folder behind', () => {
    expect(progress.at(-1)).toBe(report.scenarios.filter((s) => s.status !== 'not_applicable').length);
    expect(readdirSync(tmp)).toEqual([]);
  });
});

describe('the conformance runner at 2026-07-28', () => {
  it("runs that revision's requirement set, and agrees with the suite run directly", async () => {
    const report = await runner({ tmpDir: scratch() }).check(savedServer({ url: everything.url }), {
      specVersion: '2026-07-28',
      timeoutMs: 120_000,
    });
    const file = parseServerRequirements(
      readFileSync(join(installedSuiteDir(), 'requirements', '2026-07-28.yaml'), 'utf8'),
    );
    expect(report.scenarios.filter((s) => s.scored).map((s) => s.name)).toEqual(file.scored);
    expect(report.scenarios.filter((s) => !s.scored).map((s) => s.name)).toEqual(file.notScored.map((n) => n.scenario));
    expect(report.scenarios.find((s) => s.name === 'tasks-lifecycle')).toMatchObject({
      notScoredReason: expect.stringMatching(/^extension: /),
    });
    const direct = suiteVerdicts(everything.url, '2026-07-28');
    const ran = report.scenarios.filter((s) => s.status !== 'not_applicable');
    expect(new Map(ran.map((s) => [s.name, s.status]))).toEqual(direct);
    // The reference server is a 2025 server: most of the 2026 set fails, by the suite's own judgement.
    expect(report.score.value).toBeLessThan(50);
  });
});

describe('the conformance runner against hostile servers', () => {
  it('sends the saved headers and the OAuth token, refreshed after a 401, on every request', async () => {
    const target = await recording((request, res) =>
      res.writeHead(request.headers.authorization === 'Bearer fresh' ? 404 : 401).end(),
    );
    let refreshes = 0;
    const grants: ConformanceRunnerDeps['grants'] = {
      credentialsFor: async () => ({ accessToken: 'stale', generation: 1 }),
      afterUnauthorized: async (_server, generation): Promise<Credentials | undefined> => {
        refreshes++;
        return generation === 1 ? { accessToken: 'fresh', generation: 2 } : undefined;
      },
    };
    const report = await runner({ grants, tmpDir: scratch() }).check(
      savedServer({ url: `${target.origin}/mcp`, headers: { 'X-Api-Key': 'saved-key' } }),
      { specVersion: '2025-11-25', timeoutMs: 120_000 },
    );
    expect(report.score.value).toBe(0);
    expect(target.requests.length).toBeGreaterThan(10);
    expect(target.requests.every((r) => r.headers['x-api-key'] === 'saved-key')).toBe(true);
    expect(target.requests[0].headers.authorization).toBe('Bearer stale');
    expect(target.requests.slice(1).every((r) => r.headers.authorization === 'Bearer fresh')).toBe(true);
    expect(refreshes).toBe(1);
  });

  it('a server that redirects to another local server: that server receives nothing', async () => {
    const elsewhere = await recording();
    const hostile = await recording((_r, res) => res.writeHead(302, { location: `${elsewhere.origin}/mcp` }).end());
    const report = await runner({ tmpDir: scratch() }).check(
      savedServer({ url: `${hostile.origin}/mcp`, headers: { Authorization: 'Bearer saved-secret' } }),
      { specVersion: '2025-11-25', timeoutMs: 120_000 },
    );
    expect(hostile.requests.length).toBeGreaterThan(0);
    expect(elsewhere.requests).toEqual([]);
    expect(report.scenarios.filter((s) => s.scored).every((s) => s.status === 'failed')).toBe(true);
    expect(report.notes).toEqual(['the server answered with a redirect (HTTP 302); redirects are not followed']);
  });

  it('a name that rebinds to loopback is refused by the outbound guard: the local server receives nothing', async () => {
    const internal = await recording();
    const answers = [['93.184.215.14'], ['127.0.0.1']];
    const lookup = (
      _host: string,
      _options: { all: true },
      callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
    ) =>
      callback(
        null,
        (answers.length > 1 ? answers.shift()! : answers[0]).map((address) => ({ address, family: 4 })),
      );
    const report = await runner({ tmpDir: scratch(), lookup }).check(
      savedServer({ url: `http://mcp.rebind.test:${new URL(internal.origin).port}/mcp` }),
      { specVersion: '2025-11-25', timeoutMs: 120_000 },
    );
    expect(internal.requests).toEqual([]);
    expect(report.score.value).toBe(0);
    expect(report.notes).toEqual([
      expect.stringMatching(/mcp\.rebind\.test is not an address outbound requests may reach/),
    ]);
  });

  it('a server that never answers: the check fails at its time limit, and the suite and its children are gone', async () => {
    const tmp = scratch();
    // While the server holds the suite's first request, the suite runs (so the check below can fail).
    const runningMeanwhile: number[][] = [];
    const silent = await recording(() => runningMeanwhile.push(processesNaming(tmp)));
    const check = runner({ tmpDir: tmp, requestTimeoutMs: 600_000, scenarioTimeoutMs: 600_000 }).check(
      savedServer({ url: `${silent.origin}/mcp` }),
      // long enough for the suite (Node 22 and its bundle) to start and send its first request on a busy machine
      { specVersion: '2025-11-25', timeoutMs: 10_000 },
    );
    await expect(check).rejects.toMatchObject({ code: 'TIMEOUT', details: { reason: 'CONFORMANCE_TIMEOUT' } });
    expect(silent.requests.length).toBeGreaterThan(0);
    expect(runningMeanwhile[0].length).toBeGreaterThan(0);
    expect(processesNaming(tmp)).toEqual([]);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('a cancelled check stops the suite the same way', async () => {
    const controller = new AbortController();
    const silent = await recording(() => controller.abort(new Error('cancelled by the test')));
    const tmp = scratch();
    const check = runner({ tmpDir: tmp, requestTimeoutMs: 600_000, scenarioTimeoutMs: 600_000 }).check(
      savedServer({ url: `${silent.origin}/mcp` }),
      { specVersion: '2025-11-25', timeoutMs: 600_000, signal: controller.signal },
    );
    await expect(check).rejects.toThrow('cancelled by the test');
    expect(processesNaming(tmp)).toEqual([]);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('refuses a stdio server with 422 FEATURE_NOT_SUPPORTED before anything is spawned', async () => {
    const dir = scratch();
    const spawned = join(dir, 'spawned');
    const script = join(dir, 'would-spawn.sh');
    writeFileSync(script, `#!/bin/sh\ntouch ${spawned}\n`, { mode: 0o755 });
    // Both the suite's Node and the server's command would leave a mark if they ran.
    const check = runner({ nodePath: script, tmpDir: dir }).check(
      savedServer({ transportType: 'stdio', command: script, url: null }),
      { specVersion: '2025-11-25', timeoutMs: 60_000 },
    );
    await expect(check).rejects.toBeInstanceOf(OperationFailure);
    await expect(check).rejects.toMatchObject({
      code: 'FEATURE_NOT_SUPPORTED',
      details: { reason: 'TRANSPORT_NOT_CHECKABLE', transportType: 'stdio' },
      message: expect.stringMatching(/Streamable HTTP only/),
    });
    expect(existsSync(spawned)).toBe(false);
    expect(readdirSync(dir)).toEqual(['would-spawn.sh']);
  });

  it('without a Node 22 binary, says how to provide one', async () => {
    await expect(
      runner({ nodePath: undefined }).check(savedServer({ url: everything.url }), {
        specVersion: '2025-11-25',
        timeoutMs: 60_000,
      }),
    ).rejects.toMatchObject({ code: 'INTERNAL_ERROR', details: { reason: 'CONFORMANCE_NODE_MISSING' } });
  });
});
