import { configDefaults, defineConfig } from 'vitest/config';
import LongestFirst from './test/setup/sequencer.js';

export default defineConfig({
  test: {
    pool: 'forks',
    // Two cores: the Temporal dev server and Postgres need a share of them too.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 180_000,
    teardownTimeout: 60_000,
    reporters: process.env.CI ? ['default', 'junit'] : ['default'],
    outputFile: { junit: 'test-results/junit.xml' },
    // The longest files first, also on a clean clone without Vitest's cache of durations (test/setup/sequencer.ts).
    sequence: { sequencer: LongestFirst },
    // `npm test` runs both projects; `npm run test:unit` only the first, which shares no stack, so it takes seconds.
    projects: [
      {
        extends: true,
        test: {
          // No database, no shared stack: pure tests, and the workflows' (test/unit/workflows.test.ts) on a Temporal
          // dev server of their own. They mock no modules and stub no globals, so the files of a worker share one
          // module cache (not isolated): imports cost a third of the CPU time.
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          // Everything else needs what the global setup starts once: Postgres, a Temporal dev server, the workflow bundle.
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/unit/**'],
          globalSetup: ['test/setup/global.ts'],
          // Not isolated either: the files of a worker share one module cache, so the stack's modules (Express, the
          // Temporal client and worker, the MCP SDK, the AI SDK) load once per worker, not once per file. No file
          // mocks a module; the few spies are restored (vi.spyOn ... mockRestore) and each stack is its own.
          isolate: false,
        },
      },
    ],
  },
});
