/**
 * The conformance fixture against the real official suite (`@modelcontextprotocol/conformance`, run by its CLI on
 * Node 22), one run per revision: the fixture told to break every rule it can fails exactly the scenarios those rules
 * name, every other scored scenario running and passing. (The well-behaved fixture's full marks are shown through
 * Runway in test/integration/conformance-suite.test.ts.)
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureNode } from '../../scripts/node-binary.js';
import {
  breakableRules,
  CONFORMANCE_REVISIONS,
  startConformanceFixture,
  type BreakableRuleName,
  type ConformanceRevision,
} from '../helpers/conformanceFixture.js';

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

interface SuiteRun {
  exitCode: number | null;
  output: string;
  /** Every scenario the suite ran, with its checks (from <output>/server-<scenario>-<timestamp>/checks.json). */
  scenarios: Map<string, Check[]>;
}

const SUITE_TIMEOUT_MS = 120_000;

function conformanceEntry(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@modelcontextprotocol/conformance/package.json')), 'dist', 'index.js');
}

const workDir = mkdtempSync(join(tmpdir(), 'runway-conformance-fixture-'));
let node22 = '';
let entry = '';

/** The server scenarios the suite scores for a revision, as `list --server --requirements` prints them. */
function scoredScenarios(revision: ConformanceRevision): string[] {
  const listed = spawnSync(node22, [entry, 'list', '--server', '--requirements', revision], { encoding: 'utf8' });
  expect(listed.status, listed.stderr).toBe(0);
  const lines = listed.stdout.split('\n');
  const start = lines.findIndex((line) => line.startsWith('Server scenarios'));
  expect(start, listed.stdout).toBeGreaterThanOrEqual(0);
  const names: string[] = [];
  for (const line of lines.slice(start + 1)) {
    const item = /^\s+- (\S+)$/.exec(line);
    if (!item) break;
    names.push(item[1]);
  }
  return names;
}

/** Runs the suite's server scenarios of a revision against `url` (asynchronously: the fixture runs in this process). */
async function runSuite(url: string, revision: ConformanceRevision): Promise<SuiteRun> {
  const outputDir = mkdtempSync(join(workDir, `${revision}-`));
  const child = spawn(node22, [entry, 'server', '--url', url, '--requirements', revision, '-o', outputDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  const scenarios = new Map<string, Check[]>();
  for (const dir of readdirSync(outputDir)) {
    const name = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(dir)?.[1];
    if (!name) continue;
    scenarios.set(name, JSON.parse(readFileSync(join(outputDir, dir, 'checks.json'), 'utf8')) as Check[]);
  }
  return { exitCode, output, scenarios };
}

/**
 * For each scored scenario: its checks of the given statuses, in words. The suite fails a scenario on a FAILURE check;
 * a WARNING (a SHOULD not met) leaves it passed, so full marks means neither.
 */
function verdicts(
  run: SuiteRun,
  scored: readonly string[],
  statuses: readonly Check['status'][] = ['FAILURE'],
): Map<string, string[]> {
  return new Map(
    scored.map((name) => [
      name,
      (run.scenarios.get(name) ?? [])
        .filter((check) => statuses.includes(check.status))
        .map((check) => `${check.status} ${check.id}: ${check.errorMessage ?? ''}`),
    ]),
  );
}

const failing = (byScenario: Map<string, string[]>) =>
  [...byScenario].filter(([, problems]) => problems.length > 0).map(([name]) => name);

beforeAll(() => {
  node22 = ensureNode(22);
  entry = conformanceEntry();
});

afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe.each(CONFORMANCE_REVISIONS)('conformance fixture at %s, checked by the official suite', (revision) => {
  let scored: string[] = [];

  beforeAll(() => {
    scored = scoredScenarios(revision);
  });

  // Full marks when well-behaved is shown through Runway (test/integration/conformance-suite.test.ts), whose runner
  // agrees with the suite run directly (test/conformance/runner.test.ts): one direct run per revision is enough here.
  it(
    'fails exactly the scenarios of every rule it breaks, and passes every other',
    { timeout: SUITE_TIMEOUT_MS },
    async () => {
      const rules = breakableRules(revision);
      expect(rules.length).toBeGreaterThan(3);
      expect(scored.length).toBeGreaterThan(20);
      const fixture = await startConformanceFixture({ revision, break: rules });
      try {
        const run = await runSuite(fixture.url, revision);
        // Every scored scenario ran; those of the rules left alone passed, with a success of their own.
        expect(
          scored.filter((name) => !run.scenarios.has(name)),
          run.output.slice(-3000),
        ).toEqual([]);
        for (const name of scored.filter((name) => !rules.includes(name as BreakableRuleName)))
          expect(
            run.scenarios.get(name)?.some((check) => check.status === 'SUCCESS'),
            name,
          ).toBe(true);
        const byScenario = verdicts(run, scored);
        expect(failing(byScenario).sort()).toEqual([...rules].sort());
        // Failed by a check of the scenario itself, with the suite's own message.
        for (const rule of rules)
          expect(
            run.scenarios.get(rule)?.some((check) => check.status === 'FAILURE' && check.errorMessage),
            rule,
          ).toBe(true);
        expect(run.exitCode).not.toBe(0);
      } finally {
        await fixture.close();
      }
    },
  );
});

describe('conformance fixture: the rules it can break', () => {
  it('refuses a rule it does not know and a rule not scored at the revision', async () => {
    await expect(startConformanceFixture({ break: ['no-such-rule' as BreakableRuleName] })).rejects.toThrow(
      /unknown rule to break: no-such-rule/,
    );
    await expect(
      startConformanceFixture({ revision: '2025-11-25', break: ['input-required-result-tampered-state'] }),
    ).rejects.toThrow(/not scored at 2025-11-25/);
  });
});
