import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer as saveServer, oauthClientProblem } from '../../db/servers.js';
import { readClientKey } from '../../cli/clientKey.js';
import { ensureNode } from '../../scripts/node-binary.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';
import type { AdapterReport, OperatorServer } from './adapter.js';
import { CLIENT_SCENARIOS, revisionsOf, type ClientScenario, type Revision, type ScenarioStatus } from './scenarios.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const adapter = fileURLToPath(new URL('./adapter.ts', import.meta.url));

/**
 * The official MCP conformance suite's client scenarios, run against Runway through its HTTP API (issue 19), at each
 * protocol revision the suite runs them at (2025-11-25: the initialize handshake; 2026-07-28: the stateless
 * lifecycle). For each scenario and revision the suite (on Node 22) starts its scenario server and runs adapter.ts,
 * which saves the URL as a server and calls the server operations the scenario needs (validate, doctor, tools,
 * tools/call, resources, prompts, export, check-oauth, import-tokens); it never speaks MCP. A run passes only when
 * the suite's checks pass AND every API call answered as it should (the suite alone can pass a scenario while the
 * caller got a 502). scenarios.ts says which runs pass, which wait for other work, and which do not apply.
 *
 * The suite comes from the project's node_modules (RUNWAY_CONFORMANCE_DIR overrides: a directory holding
 * node_modules/@modelcontextprotocol/conformance); Node 22 from scripts/node-binary.ts (NODE22_PATH overrides).
 */

interface CheckResult {
  id: string;
  name: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | string;
  description: string;
  errorMessage?: string;
}

interface ScenarioRun {
  exitCode: number | null;
  output: string;
  checks: CheckResult[];
  report: AdapterReport | undefined;
  seconds: number;
  /** spawn to the adapter's start, the adapter's work, and its end to the suite's exit */
  phases: { before: number; adapter: number; after: number } | undefined;
}

/** Runs at once: each is a Node 22 runner, its scenario servers and the adapter (CI machines have 2 cores). */
const CONCURRENCY = 4;
/** Per scenario test, its wait for a turn included. */
const SCENARIO_TEST_TIMEOUT_MS = 180_000;

/** At most `limit` of the jobs run at once; the others wait for a turn. */
function limiter(limit: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(job: () => Promise<T>): Promise<T> => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await job();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}
/** The suite's own limit on the adapter (it kills it after this); well inside the test's timeout. */
const CLIENT_TIMEOUT_MS = 25_000;

function conformanceEntry(): string {
  const dir = process.env.RUNWAY_CONFORMANCE_DIR;
  const require = createRequire(dir ? join(dir, 'package.json') : import.meta.url);
  return join(dirname(require.resolve('@modelcontextprotocol/conformance/package.json')), 'dist', 'index.js');
}

/** What keeps a run from counting as passed, in words; empty when it passed. */
function problemsOf(scenario: ClientScenario, run: ScenarioRun): string[] {
  const problems: string[] = [];
  const callerChecks = new Set(scenario.callerChecks?.ids ?? []);
  if (run.checks.length === 0)
    problems.push(`the suite reported no checks (exit ${run.exitCode}): ${run.output.slice(-2000)}`);
  for (const check of run.checks) {
    if (callerChecks.has(check.id)) continue;
    if (check.status === 'FAILURE' || check.status === 'WARNING')
      problems.push(`${check.status} ${check.id}: ${check.errorMessage ?? check.description}`);
  }
  // The suite's verdict counts too (a timed-out or failed client), unless checks of the caller's part are expected to fail it.
  if (callerChecks.size === 0 && run.exitCode !== 0)
    problems.push(`the suite failed the scenario (exit ${run.exitCode})`);
  if (!run.report) problems.push(`the adapter wrote no report (exit ${run.exitCode}): ${run.output.slice(-2000)}`);
  else if (!run.report.ok) problems.push(`API: ${run.report.error ?? 'the plan did not finish'}`);
  return problems;
}

describe('MCP conformance suite: client scenarios through the API', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let operator: Server;
  let operatorUrl = '';
  let node22 = '';
  let entry = '';
  const workDir = mkdtempSync(join(tmpdir(), 'runway-conformance-'));
  const summary: {
    scenario: string;
    revision: Revision;
    result: string;
    seconds: number;
    phases?: ScenarioRun['phases'];
    calls?: string;
  }[] = [];
  const startedAt = Date.now();
  const inTurn = limiter(CONCURRENCY);

  /**
   * Runs one scenario at one revision through the suite's CLI, the adapter as its client command. `--force`: the
   * suite skips an extension scenario when a revision is named (extensions are off its timeline); the requirement
   * sets run them at each revision anyway, and so does this test. For the others it changes nothing (the
   * classification test holds them to the revisions the suite offers).
   */
  async function runScenario(name: string, revision: Revision): Promise<ScenarioRun> {
    const outputDir = mkdtempSync(join(workDir, 'results-'));
    const reportFile = join(outputDir, 'adapter-report.json');
    const started = Date.now();
    const child = spawn(
      node22,
      [
        entry,
        'client',
        '--command',
        `${node22} --disable-warning=ExperimentalWarning ${adapter}`,
        '--scenario',
        name,
        '--spec-version',
        revision,
        '--force',
        '--timeout',
        String(CLIENT_TIMEOUT_MS),
        '-o',
        outputDir,
      ],
      {
        cwd: root,
        env: {
          ...process.env,
          RUNWAY_CONFORMANCE_API: stack.baseUrl,
          RUNWAY_CONFORMANCE_API_KEY: org.apiKey,
          RUNWAY_CONFORMANCE_PROJECT: org.projectId,
          RUNWAY_CONFORMANCE_OPERATOR: operatorUrl,
          RUNWAY_CONFORMANCE_REPORT: reportFile,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const [exitCode] = (await once(child, 'close')) as [number | null];
    const ended = Date.now();
    const checksFile = (readdirSync(outputDir, { recursive: true }) as string[]).find((file) =>
      file.endsWith('checks.json'),
    );
    const report = existsSync(reportFile) ? (JSON.parse(readFileSync(reportFile, 'utf8')) as AdapterReport) : undefined;
    return {
      exitCode,
      output,
      checks: checksFile ? (JSON.parse(readFileSync(join(outputDir, checksFile), 'utf8')) as CheckResult[]) : [],
      report,
      seconds: (ended - started) / 1000,
      phases: report && {
        before: report.startedAt - started,
        adapter: report.endedAt - report.startedAt,
        after: ended - report.endedAt,
      },
    };
  }

  beforeAll(async () => {
    node22 = ensureNode(22);
    entry = conformanceEntry();
    stack = await startTestStack({
      worker: false,
      config: {
        RATE_LIMIT_BURST: '10000',
        RATE_LIMIT_PER_MINUTE: '600000',
        MCP_REQUEST_TIMEOUT_MS: '10000',
        // Scenario servers stop once the adapter exits, some only when no connection is left open to them.
        MCP_IDLE_TIMEOUT_MS: '500',
      },
    });
    org = await seedOrganization(stack.sql);
    // The operator's part: saving the scenario's server, with the db module the admin CLI uses.
    operator = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        void (async () => {
          try {
            const input = JSON.parse(body) as OperatorServer & { name: string };
            const key = input.privateKey ? readClientKey(input.privateKey, input.signingAlg) : undefined;
            const oauth = {
              transportType: 'http' as const,
              oauthGrant: input.oauthGrant ?? 'caller',
              oauthClientId: input.oauthClientId ?? null,
              clientSecret: input.clientSecret ?? null,
              privateKey: key?.pem ?? null,
              signingAlg: key?.alg ?? null,
            };
            const problem = oauthClientProblem(oauth);
            if (problem) throw new Error(problem);
            const saved = await saveServer(stack.sql, stack.box, {
              ...oauth,
              projectId: org.projectId,
              name: input.name,
              url: input.url,
              useOAuth: input.useOAuth ?? false,
              oauthScopes: input.oauthScopes,
              clientProfile: input.clientProfile,
            });
            res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id: saved.id }));
          } catch (error) {
            res.writeHead(400).end(error instanceof Error ? error.message : String(error));
          }
        })();
      });
    });
    operator.listen(0, '127.0.0.1');
    await once(operator, 'listening');
    operatorUrl = `http://127.0.0.1:${(operator.address() as AddressInfo).port}/servers`;
  });

  afterAll(async () => {
    const total = ((Date.now() - startedAt) / 1000).toFixed(1);
    console.log(
      [
        `conformance client scenarios (${total} s in all, ${CONCURRENCY} at a time):`,
        ...summary.map(
          (s) =>
            `  ${s.result.padEnd(14)} ${s.scenario} @${s.revision} (${s.seconds.toFixed(1)} s = ${JSON.stringify(s.phases)} ms; ${s.calls})`,
        ),
      ].join('\n'),
    );
    operator?.close();
    await stack?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('every client scenario of the suite is classified, at each revision the suite runs it at', () => {
    const listed = spawnSync(node22, [entry, 'list', '--client'], { encoding: 'utf8' });
    // "  - auth/metadata-default [2025-11-25,2026-07-28]"
    const offered = Object.fromEntries(
      [...listed.stdout.matchAll(/^\s*-\s+(\S+)\s+\[([^\]]*)\]/gm)].map((m) => [m[1], revisionsOf(m[2].split(','))]),
    );
    expect(Object.keys(offered).length).toBeGreaterThan(40);
    const classified = Object.fromEntries(
      Object.entries(CLIENT_SCENARIOS).map(([name, scenario]) => [name, Object.keys(scenario.at).sort()]),
    );
    expect(classified).toEqual(Object.fromEntries(Object.entries(offered).map(([name, at]) => [name, at.sort()])));
  });

  describe.concurrent('scenarios', () => {
    for (const [name, scenario] of Object.entries(CLIENT_SCENARIOS)) {
      for (const [revision, status] of Object.entries(scenario.at) as [Revision, ScenarioStatus][]) {
        if (status.kind === 'notApplicable') continue;
        it(
          status.kind === 'waits'
            ? `${name} at ${revision} waits for ${status.items.join(' and ')}`
            : `${name} at ${revision} passes`,
          async () => {
            const run = await inTurn(() => runScenario(name, revision));
            const problems = problemsOf(scenario, run);
            summary.push({
              scenario: name,
              revision,
              result:
                problems.length === 0
                  ? status.kind === 'waits'
                    ? 'passes now'
                    : 'passed'
                  : status.kind === 'waits'
                    ? 'waits'
                    : 'FAILED',
              seconds: run.seconds,
              phases: run.phases,
              calls: run.report?.calls.map((c) => `${c.step} ${c.status} ${c.ms}ms`).join(', '),
            });
            const detail = JSON.stringify(run.report?.calls.at(-1) ?? run.output.slice(-1500), null, 2);
            if (status.kind === 'passes' || problems.length === 0) {
              expect(problems, detail).toEqual([]);
            } else {
              // Still failing: only the way its items explain is fine.
              const callerChecks = new Set(scenario.callerChecks?.ids ?? []);
              const checks = run.checks.filter((check) => !callerChecks.has(check.id));
              expect(
                status.symptom({ calls: run.report?.calls ?? [], checks }),
                `fails, but not (only) with the symptom of ${status.items.join(' and ')}: ${problems.join('; ')}\n${detail}`,
              ).toBe(true);
            }
          },
          SCENARIO_TEST_TIMEOUT_MS,
        );
      }
    }
  });
});
