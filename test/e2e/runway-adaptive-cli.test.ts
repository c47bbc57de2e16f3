import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runway } from '../helpers/runwayCli.js';
import { startEvalWorld, type EvalWorld } from '../helpers/evals.js';

const MODEL = 'scripted-adaptive-cli';

/**
 * `runway evals run --adaptive-baseline previous --max-iterations-per-case N`: the second run of a suite compares
 * with the first in rounds; the report lists each case's iterations and why it stopped. The options go together.
 */
describe('runway evals run --adaptive-baseline', () => {
  let world: EvalWorld;
  let dir: string;
  let env: Record<string, string>;
  let file: string;
  beforeAll(async () => {
    world = await startEvalWorld();
    dir = mkdtempSync(join(tmpdir(), 'runway-adaptive-'));
    env = { RUNWAY_URL: world.stack.origin, RUNWAY_API_KEY: world.org.apiKey, RUN_MODEL_KEY: 'k' };
    file = join(dir, 'suite.json');
    const test = (title: string, query: string) => ({
      title,
      query,
      runs: 10,
      model: MODEL,
      provider: 'openai',
      expectedToolCalls: [{ toolName: 'echo' }],
    });
    writeFileSync(
      file,
      JSON.stringify({
        suiteName: 'Adaptive CLI',
        servers: ['everything'],
        isolation: 'shared',
        tests: [test('steady', 'steady q'), test('broken', 'broken q')],
      }),
    );
  });
  afterAll(async () => world?.stop());

  const pass = (query: string) => [{ toolCalls: [{ name: 'echo', arguments: { message: query } }] }, { text: 'ok' }];
  const fail = (query: string) => [
    {
      error: { status: 400, message: 'scripted failure', type: 'invalid_request_error', times: 1000 },
      toolCalls: [{ name: 'echo', arguments: { message: query } }],
    },
    { text: 'ok' },
  ];
  const evalsRun = (more: string[]) =>
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
        ...more,
      ],
      env,
      dir,
    );

  it('refuses half the options as a usage error, then runs adaptively and reports why each case stopped', async () => {
    const half = await evalsRun(['--adaptive-baseline', 'previous']);
    expect(half.code).toBe(2);
    expect(half.stderr).toContain('--max-iterations-per-case');

    world.model.setScript(MODEL, { byQuery: { 'steady q': pass('steady q'), 'broken q': pass('broken q') } });
    const first = await evalsRun([]);
    expect(first.code, first.stdout + first.stderr).toBe(0);

    world.model.setScript(MODEL, { byQuery: { 'steady q': pass('steady q'), 'broken q': fail('broken q') } });
    const second = await evalsRun([
      '--adaptive-baseline',
      'previous',
      '--max-iterations-per-case',
      '30',
      '--first-round',
      '5',
    ]);
    expect(second.stdout).toMatch(
      /Adaptive iterations against run_\w+ \(at most 30 per case, alpha 0\.05\): 15 of 60 spent/,
    );
    expect(second.stdout).toContain('steady: 5 iterations, decided_unchanged');
    expect(second.stdout).toMatch(/broken: 10 iterations, decided_regressed \(p /);
  });
});
