import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runway } from '../helpers/runwayCli.js';
import { startEvalWorld, type EvalWorld } from '../helpers/evals.js';

const MODEL = 'scripted-gate';

const runIdOf = (stderr: string) => /\[runway\] run (run_\w+) started/.exec(stderr)?.[1];

/**
 * The CI gate: `runway evals run --baseline previous` exits 0 when only a 3-iteration case drifts (3/3 -> 2/3,
 * noise) though the run misses its pass criteria, and 1 when a 10-iteration case regresses (10/10 -> 2/10); the
 * JUnit report marks the regressed case; `runway evals compare` says the same.
 */
describe('runway evals compare and evals run --baseline', () => {
  let world: EvalWorld;
  let dir: string;
  let env: Record<string, string>;
  let file: string;
  beforeAll(async () => {
    world = await startEvalWorld();
    dir = mkdtempSync(join(tmpdir(), 'runway-compare-'));
    env = { RUNWAY_URL: world.stack.origin, RUNWAY_API_KEY: world.org.apiKey, RUN_MODEL_KEY: 'k' };
    file = join(dir, 'suite.json');
    const test = (title: string, query: string, runs: number) => ({
      title,
      query,
      runs,
      model: MODEL,
      provider: 'openai',
      expectedToolCalls: [{ toolName: 'echo' }],
    });
    writeFileSync(
      file,
      JSON.stringify({
        suiteName: 'Gate',
        servers: ['everything'],
        isolation: 'shared',
        tests: [test('regresses', 'regress me', 10), test('drifts', 'drift me', 3)],
      }),
    );
  });
  afterAll(async () => world?.stop());

  const pass = (query: string) => [{ toolCalls: [{ name: 'echo', arguments: { message: query } }] }, { text: 'ok' }];
  const failFirst = (query: string, times: number) => [
    {
      error: { status: 400, message: 'scripted failure', type: 'invalid_request_error', times },
      toolCalls: [{ name: 'echo', arguments: { message: query } }],
    },
    { text: 'ok' },
  ];
  const evalsRun = (junit: string) =>
    runway(
      [
        'evals',
        'run',
        '--suite-file',
        file,
        '--model-key-env',
        'openai=RUN_MODEL_KEY',
        '--poll-interval',
        '200',
        '--baseline',
        'previous',
        '--junit',
        join(dir, junit),
      ],
      env,
      dir,
    );

  it('exits 0 for noise and 1 for a significant regression', async () => {
    world.model.setScript(MODEL, { byQuery: { 'regress me': pass('regress me'), 'drift me': pass('drift me') } });
    const first = await evalsRun('first.xml');
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stderr).toContain('no previous completed run');

    world.model.setScript(MODEL, {
      byQuery: { 'regress me': pass('regress me'), 'drift me': failFirst('drift me', 1) },
    });
    const drift = await evalsRun('drift.xml');
    // The run misses its pass criteria (14/15 < 100%), but against the baseline it only drifted: the gate passes.
    expect(drift.stdout).toContain('Result: FAILED');
    expect(drift.stdout).toMatch(/^changed\s+drifts\s+3\/3 100\.0%\s+2\/3 66\.7%/m);
    expect(drift.stdout).toContain('NO SIGNIFICANT CHANGE');
    expect(drift.code, drift.stdout + drift.stderr).toBe(0);
    const driftRun = runIdOf(drift.stderr)!;
    // Any drop counts with --fail-on any-regression.
    const strict = await runway(['evals', 'compare', driftRun, '--fail-on', 'any-regression'], env, dir);
    expect(strict.code, strict.stdout + strict.stderr).toBe(1);
    expect(strict.stderr).toContain(
      '[runway] FAILED --fail-on any-regression: 1 case lost pass rate, noise included: drifts',
    );
    expect((await runway(['evals', 'compare', driftRun], env, dir)).code).toBe(0);

    world.model.setScript(MODEL, {
      byQuery: { 'regress me': failFirst('regress me', 8), 'drift me': pass('drift me') },
    });
    const regression = await evalsRun('regression.xml');
    expect(regression.code, regression.stdout + regression.stderr).toBe(1);
    const lines = regression.stdout.split('\n');
    const header = lines.findIndex((l) => l.startsWith('STATUS'));
    // Regressions first.
    expect(lines[header + 2]).toMatch(/^regressed\s+regresses\s+10\/10 100\.0%\s+2\/10 20\.0%\s+-80\.0\b.*\byes\b/);
    const xml = readFileSync(join(dir, 'regression.xml'), 'utf8');
    expect(xml).toContain('name="runway.comparison.verdict" value="regressed"');
    expect(xml).toContain('name="runway.comparison" value="regressed"');
    expect(xml).toMatch(/message="regressed: pass rate 100% -&gt; 20%/);

    const compared = await runway(['evals', 'compare', runIdOf(regression.stderr)!, '--base', driftRun], env, dir);
    expect(compared.code).toBe(1);
    expect(compared.stdout).toContain('REGRESSED');
    expect(compared.stderr).toContain(
      '[runway] FAILED --fail-on significant-regression: 1 case regressed significantly (Benjamini-Hochberg, false-discovery rate 5%): regresses',
    );
  });

  it('compares the models of one run with a margin, names the cheapest non-inferior one, and refuses a bad margin', async () => {
    world.model.setScript('scripted-big', { byQuery: { 'pick me': pass('pick me') } });
    world.model.setScript('scripted-small', { byQuery: { 'pick me': failFirst('pick me', 6) } });
    const models = join(dir, 'models.json');
    writeFileSync(
      models,
      JSON.stringify({
        suiteName: 'Models gate',
        servers: ['everything'],
        isolation: 'shared',
        tests: [
          {
            title: 'pick',
            query: 'pick me',
            runs: 10,
            models: [
              { model: 'scripted-big', provider: 'openai' },
              { model: 'scripted-small', provider: 'openai' },
            ],
            expectedToolCalls: [{ toolName: 'echo' }],
          },
        ],
      }),
    );
    const ran = await runway(
      ['evals', 'run', '--suite-file', models, '--model-key-env', 'openai=RUN_MODEL_KEY', '--poll-interval', '200'],
      env,
      dir,
    );
    const runId = runIdOf(ran.stderr)!;
    expect(runId, ran.stdout + ran.stderr).toBeDefined();
    const picked = await runway(
      ['evals', 'compare', runId, '--by-model', '--base-model', 'scripted-big', '--margin', '0.1'],
      env,
      dir,
    );
    expect(picked.code, picked.stdout + picked.stderr).toBe(0);
    expect(picked.stdout).toMatch(/^scripted-big\s+10\/10\s+100\.0%.*\bbaseline\b/m);
    expect(picked.stdout).toMatch(/^scripted-small\s+4\/10\s+40\.0%\s+-60\.0\b.*\binferior\b/m);
    expect(picked.stdout).toContain('Cheapest non-inferior model: scripted-big');
    const bad = await runway(['evals', 'compare', runId, '--by-model', '--margin', '5'], env, dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--margin must be a rate between 0 and 1');
    const noMargin = await runway(['evals', 'compare', runId, '--by-model'], env, dir);
    expect(noMargin.code).toBe(2);
    expect(noMargin.stderr).toContain('--by-model needs --margin');
  });
});
