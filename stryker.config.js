// Mutation testing of the pure core: `npm run test:mutation`. Stryker changes the code (mutants) and checks that
// some unit test fails for each change; a surviving mutant is a behaviour no test pins down.
// Equivalent mutants (a change no input can observe) are marked in the source with
// `// Stryker disable next-line <mutator>: <why it is equivalent>`.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts' },
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: [
    'domain/evals/scoring.ts',
    'domain/evals/matchOptions.ts',
    'domain/evals/statistics.ts',
    'domain/evals/compare/statistics.ts',
    'domain/evals/compare/power.ts',
    'domain/evals/compare/nonInferiority.ts',
    'domain/evals/compare/modelChoices.ts',
    'domain/evals/outputCheck.ts',
    'domain/evals/caseShape.ts',
    // turnChanges only: the file's database and MCP calls are fenced off by `Stryker disable all` comments
    'domain/evals/caseWrites.ts',
    'domain/models/failures.ts',
    'domain/retryAfter.ts',
    'activities/retryPolicy.ts',
    'workflows/batching.ts',
  ],
  coverageAnalysis: 'perTest',
  // Two shared cores: at most two test processes.
  concurrency: 2,
  // Static mutants (module-level constants such as DEFAULT_MATCH_OPTIONS or the kind -> reason table) are evaluated
  // once at import, so each needs a fresh process running every test: 3% of the mutants, 41% of the time. The
  // tables they mutate are pinned by the tests all the same (every kind's reason and retry decision is asserted).
  ignoreStatic: true,
  // Reruns test only the mutants whose code or tests changed since the last run.
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  reporters: ['clear-text', 'progress', 'html'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  thresholds: { high: 95, low: 90, break: 95 },
  tempDirName: '.stryker-tmp',
};
