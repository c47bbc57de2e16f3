import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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
import { CLIENT_SCENARIOS, type ClientScenario } from './scenarios.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const adapter = fileURLToPath(new URL('./adapter.ts', import.meta.url));

/**
 * The official MCP conformance suite's client scenarios, run against Runway through its HTTP API (issue 19). For
 * each scenario the suite (on Node 22) starts its scenario server and runs adapter.ts, which saves the URL as a
 * server and calls validate, doctor, tools, tools/call, check-oauth and import-tokens; it never speaks MCP. A
 * scenario passes only when the suite's checks pass AND every API call answered as it should (the suite alone
 * can pass a scenario while the caller got a 502). scenarios.ts says which scenarios pass, which wait for another
 * item of issue 19, and which do not apply.
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

/** Scenarios at once: each is a Node 22 runner, its scenario servers and a tsx adapter (CI machines have 2 cores). */
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
function problemsOf(name: string, scenario: ClientScenario, run: ScenarioRun): string[] {
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
  if (!run.report) problems.push(`the adapter wrote no report for ${name}`);
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
  const reports = join(workDir, 'reports');
  const summary: {
    scenario: string;
    result: string;
    seconds: number;
    phases?: ScenarioRun['phases'];
    calls?: string;
  }[] = [];
  const startedAt = Date.now();
  const inTurn = limiter(CONCURRENCY);

  /** Runs one scenario through the suite's CLI, the adapter as its client command. */
  async function runScenario(name: string): Promise<ScenarioRun> {
    const outputDir = mkdtempSync(join(workDir, 'results-'));
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
          RUNWAY_CONFORMANCE_REPORTS: reports,
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
    const reportFile = join(reports, `${name.replaceAll('/', '_')}.json`);
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
    mkdirSync(reports);
    // The operator's part: saving the scenario's server, with the db module the admin CLI uses.
    operator = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        void (async () => {
          try {
            const input = JSON.parse(body) as OperatorServer & { scenario: string };
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
              name: input.scenario,
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
            `  ${s.result.padEnd(14)} ${s.scenario} (${s.seconds.toFixed(1)} s = ${JSON.stringify(s.phases)} ms; ${s.calls})`,
        ),
      ].join('\n'),
    );
    operator?.close();
    await stack?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('every client scenario of the suite is classified', () => {
    const listed = spawnSync(node22, [entry, 'list'], { encoding: 'utf8' });
    const clientPart = listed.stdout.split('Client scenarios')[1] ?? '';
    const names = [...clientPart.matchAll(/^\s*-\s+(\S+)/gm)].map((m) => m[1]);
    expect(names.length).toBeGreaterThan(20);
    expect(names.sort()).toEqual(Object.keys(CLIENT_SCENARIOS).sort());
  });

  describe.concurrent('scenarios', () => {
    for (const [name, scenario] of Object.entries(CLIENT_SCENARIOS)) {
      const status = scenario.status;
      if (status.kind === 'notApplicable') continue;
      it(
        status.kind === 'waits' ? `${name} waits for ${status.items.join(' and ')}` : `${name} passes`,
        async () => {
          const run = await inTurn(() => runScenario(name));
          const problems = problemsOf(name, scenario, run);
          summary.push({
            scenario: name,
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
            expect(
              status.symptom({ calls: run.report?.calls ?? [], checks: run.checks }),
              `fails, but not (only) with the symptom of ${status.items.join(' and ')}: ${problems.join('; ')}\n${detail}`,
            ).toBe(true);
          }
        },
        SCENARIO_TEST_TIMEOUT_MS,
      );
    }
  });
});
