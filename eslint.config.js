import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

/**
 * Which folder may import which (ARCHITECTURE.md): imports point from the edges (api/, activities/, worker/, cli/)
 * to runtime/, the domain and db/, never back. Type-only imports are allowed where a layer reads a shape it does
 * not run (db/ reads the domain's nouns it maps rows to, api/ the workflows' types).
 */
/** What no domain file imports, besides db/. */
const domainBanned = [
  'express',
  '@temporalio/*',
  '**/api/**',
  '**/workflows/**',
  '**/runtime/**',
  '**/activities/**',
  '**/worker/**',
  '**/cli/**',
  '**/scripts/**',
];

const layers = [
  {
    files: ['domain/**/*.ts'],
    why: 'domain/ is the product without its processes: no Express, no Temporal, no edge, no storage (what it needs from them is a port it declares, domain/ports/, implemented in db/ or runtime/; the input a story takes, it declares itself)',
    banned: ['**/db/**', ...domainBanned],
    typesOnly: [],
  },
  {
    files: ['db/**/*.ts'],
    why: "db/ maps rows to the domain's nouns and implements its ports: it imports no other layer, and the domain only as types (but for what the domain owns and db/ must produce: ids, column bounds, the hosts' header marker and its refusal)",
    banned: [
      'express',
      '@temporalio/*',
      '**/api/**',
      '**/activities/**',
      '**/worker/**',
      '**/runtime/**',
      '**/workflows/**',
      '**/cli/**',
      '**/scripts/**',
    ],
    // (a file below domain/ is let through by letting its folder through first, then fencing the folder's other files)
    typesOnly: [
      '**/domain/**',
      '!**/domain/ids.js',
      '!**/domain/columnLimits.js',
      '!**/domain/catalog',
      '**/domain/catalog/*',
      '!**/domain/catalog/host.js',
    ],
  },
  {
    files: ['runtime/**/*.ts'],
    why: 'runtime/ composes what both processes share: no HTTP edge, no worker code',
    banned: [
      'express',
      '@temporalio/worker',
      '@temporalio/activity',
      '@temporalio/workflow',
      '**/api/**',
      '**/activities/**',
      '**/worker/**',
      '**/cli/**',
      '**/scripts/**',
    ],
    typesOnly: [],
  },
  {
    files: ['api/**/*.ts'],
    why: 'api/ is the HTTP process: it calls the domain directly and reaches the worker only through Temporal',
    banned: [
      '@temporalio/worker',
      '@temporalio/activity',
      '**/activities/**',
      '**/worker/**',
      '**/cli/**',
      '**/scripts/**',
    ],
    typesOnly: ['**/workflows/**', '!**/workflows/definitions.js'],
  },
  {
    files: ['api/routes/**/*.ts'],
    why: 'a route parses, calls one use case (domain/useCases) and maps its result: it reaches no table itself',
    banned: [
      '**/db/**',
      '@temporalio/worker',
      '@temporalio/activity',
      '**/activities/**',
      '**/worker/**',
      '**/cli/**',
      '**/scripts/**',
    ],
    typesOnly: ['**/workflows/**', '!**/workflows/definitions.js'],
  },
  {
    files: ['activities/**/*.ts', 'worker/**/*.ts'],
    why: 'the worker process has no HTTP edge',
    banned: ['express', '**/api/**', '**/cli/**', '**/scripts/**'],
    typesOnly: [],
  },
].map(({ files, ignores, why, banned, typesOnly }) => ({
  files,
  ...(ignores && { ignores }),
  rules: {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        patterns: [
          { group: banned, message: why },
          ...(typesOnly.length
            ? [{ group: typesOnly, allowTypeImports: true, message: `${why} (type imports only)` }]
            : []),
        ],
      },
    ],
  },
}));

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      '.data/',
      '.tools/',
      '.scratch/',
      '.stryker-tmp/',
      'dist/',
      'console/dist/',
      'test-results/',
      'bench/results/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox: no Node builtins, no I/O, and only type imports
    // of activities/ and api/ (proxyActivities needs the types, never the code). One domain module is imported as a
    // value: domain/ports/runWorkflows.ts, pure, the workflow id and the shapes the domain shares with the workflows.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          // Every builtin by its bare name (fs, fs/promises, timers, ...), from Node's own list, not a hand-picked one;
          // matched as whole names (as patterns, `domain` would also match the domain/ folder).
          paths: builtinModules.map((name) => ({
            name,
            message: 'workflows run in a deterministic sandbox: no Node builtins',
          })),
          patterns: [
            { group: ['node:*'], message: 'workflows run in a deterministic sandbox: no Node builtins' },
            {
              group: [
                '**/activities/**',
                '**/api/**',
                '**/db/**',
                '**/domain/**',
                '!**/domain/ports',
                '**/domain/ports/*',
                '!**/domain/ports/runWorkflows.js',
                '**/runtime/**',
                'postgres',
                '@modelcontextprotocol/*',
                'ai',
                '@ai-sdk/*',
              ],
              allowTypeImports: true,
              message: 'workflows may import the other layers only as types',
            },
          ],
        },
      ],
    },
  },
  ...layers,
  {
    // The console runs in the browser: it reaches the server only over HTTP (/api/v1), and reads the replies' types
    // from api/schemas (type imports, erased by esbuild), so no server code lands in its bundle.
    files: ['console/**/*.{ts,tsx}'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              // `domain` is a Node builtin's name too (deprecated): a path through domain/ is not it; the rule below
              // keeps the domain's code out but for its one shared parser.
              group: ['node:*', ...builtinModules.filter((name) => name !== 'domain')],
              message: 'console/ runs in the browser: no Node builtins',
            },
            {
              // One pure module is shared as code: the Retry-After parser (domain/retryAfter.ts), import-free.
              group: ['**/api/**', '**/domain/**', '!**/domain/retryAfter.js', '**/db/**', '**/runtime/**', 'zod'],
              allowTypeImports: true,
              message: 'console/ reads the API through HTTP: type imports only',
            },
          ],
        },
      ],
    },
  },
  {
    // One place reads the environment, through one schema (runtime/config.ts): every other read names why it is
    // not a setting (a child's environment passed on, a variable the user named).
    files: ['**/*.ts'],
    ignores: ['test/**', 'bench/**', '*.config.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'read settings through a loader of runtime/config.ts' },
      ],
    },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  // Layout is Prettier's (`npm run format`; `npm run lint` checks it): no stylistic rule of ESLint's competes.
  prettier,
);
