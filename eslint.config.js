import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', '.data/', '.tools/', '.scratch/', 'test-results/', 'bench/results/'] },
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
    // of activities/ and api/ (proxyActivities needs the types, never the code).
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['node:*'], message: 'workflows run in a deterministic sandbox: no Node builtins' },
          // Every builtin by its bare name (fs, fs/promises, timers, ...), from Node's own list, not a hand-picked one.
          { group: builtinModules, message: 'workflows run in a deterministic sandbox: no Node builtins' },
          { group: ['**/activities/**', '**/api/**', '**/db/**', 'postgres', '@modelcontextprotocol/*', 'ai', '@ai-sdk/*'], allowTypeImports: true, message: 'workflows may import activities/api only as types' },
        ],
      }],
    },
  },
  {
    // One place reads the environment, through one schema (activities/config.ts): every other read names why it is
    // not a setting (a child's environment passed on, a variable the user named).
    files: ['**/*.ts'],
    ignores: ['test/**', 'bench/**', '*.config.ts'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'read settings through a loader of activities/config.ts' }],
    },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
);
