import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest (seconds on 2 cores, from CI's JUnit report), started first: with two workers, a long
 * file started late leaves one worker running it alone at the end. Vitest orders by the durations it cached on the
 * last run, but a clean clone (CI) has none, and then it orders by file size, which put the fault tests (the longest
 * file, a small one) past the middle. Files not listed keep Vitest's order, after these.
 */
const LONGEST = [
  'test/faults/faults.test.ts', // ~130 s
  'test/e2e/runway-cli.test.ts', // ~70 s
  'test/e2e/admin-cli.test.ts', // ~65 s
  'test/conformance/client-scenarios.test.ts', // ~65 s
  'test/e2e/readme.test.ts', // ~60 s
  'test/reliability/fuzz.test.ts', // ~55 s
  'test/e2e/npm-start.test.ts', // ~45 s
  'test/load/load.test.ts', // ~45 s
  'test/e2e/console-suites.test.ts', // ~40 s
  'test/e2e/production-build.test.ts', // ~35 s
];

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const at = LONGEST.indexOf(relative(this.ctx.config.root, file.moduleId));
      return at === -1 ? LONGEST.length : at;
    };
    // Projects keep Vitest's order (each contiguous); within one, the listed files first, the rest in Vitest's order.
    const projects = [...new Set(sorted.map((file) => file.project.name))];
    return sorted
      .map((file, index) => ({ file, index, project: projects.indexOf(file.project.name), rank: rank(file) }))
      .sort((a, b) => a.project - b.project || a.rank - b.rank || a.index - b.index)
      .map(({ file }) => file);
  }
}
