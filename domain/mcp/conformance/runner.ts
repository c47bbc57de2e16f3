import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { OperationFailure } from '../../failures.js';
import { formatCount, limits } from '../../limits.js';
import type { OAuthGrants } from '../oauth.js';
import type { Lookup } from '../outbound.js';
import { requestHeaders, type Credentials } from '../transports.js';
import type { SavedServer } from '../../catalog/server.js';
import { startBridge, type Bridge } from './bridge.js';
import {
  CONFORMANCE_REVISIONS,
  type ConformanceOptions,
  type ConformanceReport,
  type ConformanceRevision,
  type ConformanceRunner,
} from './report.js';
import { parseServerRequirements } from './requirements.js';
import { assembleScenarios, parseChecks, scenarioOfResultDir, type ScenarioResult } from './results.js';
import { scoreScenarios } from './score.js';
import { runSuite, type SuiteExit } from './suiteProcess.js';

export interface ConformanceRunnerDeps {
  /** the saved servers' OAuth grants (the same OAuthGrants the MCP operations use): tokens injected, refreshed on 401 */
  grants: Pick<OAuthGrants, 'credentialsFor' | 'afterUnauthorized'>;
  /** a Node 22 (or later) binary to run the suite with (runtime/nodeBinary.ts, conformanceNodeBinary); undefined: none */
  nodePath: string | undefined;
  /**
   * one request through the bridge: how long it waits for the server's headers, or for a reply's next bytes (ms);
   * config.MCP_REQUEST_TIMEOUT_MS (a server saved with its own request timeout uses that)
   */
  requestTimeoutMs: number;
  /** each scenario's limit, passed to the suite (--timeout); 30000 by default, the suite's own */
  scenarioTimeoutMs?: number;
  /** bytes one reply through the bridge may hold; limits.serverMessageBytes by default */
  maxReplyBytes?: number;
  /** the folder holding the suite's package.json; the installed @modelcontextprotocol/conformance by default */
  suiteDir?: string;
  /** where the suite's results folder is made (and removed); the system's temporary folder by default */
  tmpDir?: string;
  /** DNS resolution for the bridge's address guard (tests); node:dns by default */
  lookup?: Lookup;
}

export const DEFAULT_SCENARIO_TIMEOUT_MS = 30_000;
const positive = (ms: number | undefined) => (ms !== undefined && ms > 0 ? ms : undefined);
/** Bytes of one scenario's checks.json read at most. */
export const MAX_CHECKS_FILE_BYTES = 8 * 1024 * 1024;
/** How often progress is said while a scenario runs (an activity heartbeats with it). */
const PROGRESS_EVERY_MS = 5_000;
/** Bytes of the suite's own output a failure of the suite quotes. */
const FAILURE_OUTPUT_CHARS = 2000;

/** The installed suite package's folder. */
export function installedSuiteDir(): string {
  return dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json'));
}

/** A server whose transport the suite cannot speak to: 422 FEATURE_NOT_SUPPORTED, saying why. */
export function notCheckable(server: Pick<SavedServer, 'name' | 'transportType'>): OperationFailure | undefined {
  if (server.transportType === 'http') return undefined;
  const why =
    server.transportType === 'stdio'
      ? `server '${server.name}' runs over stdio; the official conformance suite speaks Streamable HTTP only, and a stdio server would need a bridge that spawns it, which Runway does not offer for checks`
      : `server '${server.name}' uses the legacy HTTP+SSE transport; the official conformance suite speaks Streamable HTTP only`;
  return new OperationFailure(
    'FEATURE_NOT_SUPPORTED',
    `${why}. Save it with transport http (Streamable HTTP) to check it`,
    {
      reason: 'TRANSPORT_NOT_CHECKABLE',
      transportType: server.transportType,
    },
  );
}

/**
 * The runner of the official MCP conformance suite: its server scenarios of one revision's requirement set, run as
 * the real package (in a child process on Node 22+) against the saved server through a loopback bridge
 * (bridge.ts), read back from the results it writes, and scored (score.ts).
 */
export function createConformanceRunner(deps: ConformanceRunnerDeps): ConformanceRunner {
  return {
    async check(server: SavedServer, options: ConformanceOptions): Promise<ConformanceReport> {
      const refused = notCheckable(server);
      if (refused) throw refused;
      if (!server.url) throw new OperationFailure('VALIDATION_ERROR', `server '${server.name}' has no URL`);
      if (!(CONFORMANCE_REVISIONS as readonly string[]).includes(options.specVersion))
        throw new OperationFailure(
          'VALIDATION_ERROR',
          `the conformance suite checks revisions ${CONFORMANCE_REVISIONS.join(', ')}, not ${String(options.specVersion)}`,
        );
      if (!deps.nodePath)
        throw new OperationFailure(
          'INTERNAL_ERROR',
          'no Node 22 (or later) binary to run the conformance suite with: run the worker on Node 22+, or set CONFORMANCE_NODE_PATH (or install the cached one with `npx tsx scripts/node-binary.ts 22`)',
          { reason: 'CONFORMANCE_NODE_MISSING' },
        );
      options.signal?.throwIfAborted();
      const startedAt = new Date();
      const deadline = startedAt.getTime() + options.timeoutMs;
      const suiteDir = deps.suiteDir ?? installedSuiteDir();
      const suite = await readSuite(suiteDir, options.specVersion);

      let credentials: Credentials | undefined = await deps.grants.credentialsFor(server);
      const outputDir = await mkdtemp(join(deps.tmpDir ?? tmpdir(), 'runway-conformance-'));
      let bridge: Bridge | undefined;
      // Said at each scenario's end, and every few seconds in between (a scenario may take its whole 30 s).
      let scenariosDone = 0;
      let ticking: NodeJS.Timeout | undefined;
      try {
        bridge = await startBridge(
          {
            url: server.url,
            headers: () => requestHeaders(server, credentials),
            unauthorized: async () => {
              if (!credentials) return false;
              const next = await deps.grants.afterUnauthorized(server, credentials.generation).catch(() => undefined);
              if (!next) return false;
              credentials = next;
              return true;
            },
          },
          {
            // The server's own request timeout when it was saved with one, as for its other calls.
            requestTimeoutMs: positive(server.timeouts.requestMs) ?? deps.requestTimeoutMs,
            maxReplyBytes: deps.maxReplyBytes ?? limits.serverMessageBytes,
            maxRequestBytes: limits.serverMessageBytes,
            lookup: deps.lookup,
          },
        );
        if (options.onProgress) ticking = setInterval(() => options.onProgress?.({ scenariosDone }), PROGRESS_EVERY_MS);
        const exit = await runSuite({
          nodePath: deps.nodePath,
          entry: join(suiteDir, 'dist', 'index.js'),
          url: bridge.url,
          revision: options.specVersion,
          outputDir,
          scenarioTimeoutMs: deps.scenarioTimeoutMs ?? DEFAULT_SCENARIO_TIMEOUT_MS,
          timeoutMs: Math.max(0, deadline - Date.now()),
          signal: options.signal,
          onScenarioDone: (done) => {
            scenariosDone = done;
            options.onProgress?.({ scenariosDone });
          },
        });
        const results = await readResults(outputDir, exit.scenarioErrors);
        // 0: every check passed, 1: some failed; anything else (or nothing written) is the suite failing to run.
        if ((exit.exitCode !== 0 && exit.exitCode !== 1) || results.size === 0) throw suiteFailed(exit);
        const scenarios = assembleScenarios(suite.requirements, results);
        const notes = bridge.notes();
        return {
          specVersion: options.specVersion,
          suiteVersion: suite.version,
          scenarios,
          score: scoreScenarios(scenarios),
          startedAt: startedAt.toISOString(),
          finishedAt: new Date().toISOString(),
          ...(notes.length > 0 && { notes }),
        };
      } finally {
        clearInterval(ticking);
        await bridge?.close();
        await rm(outputDir, { recursive: true, force: true });
      }
    },
  };
}

/** The suite's version and the revision's requirement set, from the package itself. */
async function readSuite(suiteDir: string, revision: ConformanceRevision) {
  const pkg = JSON.parse(await readFile(join(suiteDir, 'package.json'), 'utf8')) as { version?: unknown };
  if (typeof pkg.version !== 'string') throw new Error(`${suiteDir}/package.json names no version`);
  const requirements = parseServerRequirements(
    await readFile(join(suiteDir, 'requirements', `${revision}.yaml`), 'utf8'),
  );
  return { version: pkg.version, requirements };
}

/** Each scenario's checks from the results folder (the newest folder of a scenario run twice). */
export async function readResults(
  outputDir: string,
  scenarioErrors: ReadonlyMap<string, string> = new Map(),
): Promise<Map<string, ScenarioResult>> {
  const dirs = (await readdir(outputDir, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const results = new Map<string, ScenarioResult>();
  for (const dir of dirs) {
    const scenario = scenarioOfResultDir(dir);
    if (!scenario) continue;
    try {
      const file = join(outputDir, dir, 'checks.json');
      // The suite quotes what the server sent in some messages: a file past this is not read into memory.
      if ((await stat(file)).size > MAX_CHECKS_FILE_BYTES) {
        results.set(scenario, {
          unreadable: `the suite's checks for the scenario are larger than ${formatCount(MAX_CHECKS_FILE_BYTES)} bytes`,
        });
        continue;
      }
      results.set(scenario, { checks: parseChecks(await readFile(file, 'utf8')) });
    } catch (error) {
      const why =
        (error as NodeJS.ErrnoException).code === 'ENOENT'
          ? `the suite could not run the scenario: ${scenarioErrors.get(scenario) ?? 'it wrote no checks'}`
          : "the suite's checks.json for the scenario is not in its format";
      results.set(scenario, { unreadable: why });
    }
  }
  return results;
}

function suiteFailed(exit: SuiteExit): OperationFailure {
  const how = exit.signal ? `was killed (${exit.signal})` : `ended with code ${exit.exitCode}`;
  const output = (exit.stderr.trim() || exit.stdout.trim()).slice(-FAILURE_OUTPUT_CHARS);
  return new OperationFailure('INTERNAL_ERROR', `the conformance suite ${how} without results`, {
    reason: 'CONFORMANCE_SUITE_FAILED',
    exitCode: exit.exitCode,
    signal: exit.signal,
    output,
  });
}
