import { defineConfig } from 'vitest/config';

// Mutation testing (stryker.config.js) runs only the pure unit tests of the mutated core: no global setup, so no
// Postgres, Temporal or workflow bundle is started, and each mutant runs in well under a second. Kept apart from
// vitest.config.ts on purpose: the full suite's config is for `npm test`.
export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 1,
    include: [
      'test/unit/scoring.test.ts',
      'test/unit/match-options.test.ts',
      'test/unit/statistics.test.ts',
      'test/unit/compare-statistics.test.ts',
      'test/unit/compare-power.test.ts',
      'test/unit/compare-sides.test.ts',
      'test/unit/non-inferiority.test.ts',
      'test/unit/output-check.test.ts',
      'test/unit/case-shape.test.ts',
      'test/unit/case-writes.test.ts',
      'test/unit/models-failures.test.ts',
      'test/unit/retry-after.test.ts',
      'test/unit/retry-policy.test.ts',
      'test/unit/batching.test.ts',
    ],
  },
});
