import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseModelScript } from '../fixtures/model/script.js';
import { fencedBlocks, headingAnchors, localLinks } from '../helpers/markdown.js';

// The README and docs/ are for someone who has only a clone: everything they point to must be in it.
const root = fileURLToPath(new URL('../..', import.meta.url));
const documents = [
  'README.md',
  'ARCHITECTURE.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const read = (path: string) => readFileSync(join(root, path), 'utf8');

describe("the project's documentation", () => {
  it('points to nothing outside the clone', () => {
    for (const document of documents) {
      const text = read(document);
      for (const outside of ['../shared', 'DESIGN.md', 'contract-notes', 'spec/api.md']) {
        expect(text.includes(outside), `${document} mentions ${outside}, which a clone does not have`).toBe(false);
      }
    }
  });

  it('ARCHITECTURE.md places every top-level code folder, and names only folders that exist', () => {
    const table = read('ARCHITECTURE.md')
      .split('\n')
      .filter((line) => line.startsWith('| `'));
    const placed = table.flatMap((line) => [...line.split('|')[1].matchAll(/`([\w.-]+)\/`/g)].map((m) => m[1]));
    const folders = readdirSync(root, { withFileTypes: true })
      .filter(
        (e) =>
          e.isDirectory() &&
          !e.name.startsWith('.') &&
          !['node_modules', 'examples', 'reports', 'test-results', 'dist'].includes(e.name),
      )
      .map((e) => e.name);
    expect(placed.sort()).toEqual(folders.sort());
  });

  it('links only to files and headings that exist', () => {
    for (const document of documents) {
      const text = read(document);
      for (const link of localLinks(text)) {
        const target = link.path === '' ? document : relative(root, join(root, dirname(document), link.path));
        expect(existsSync(join(root, target)), `${document} links to ${link.path}, which does not exist`).toBe(true);
        if (link.anchor === undefined || !target.endsWith('.md') || !statSync(join(root, target)).isFile()) continue;
        expect(
          [...headingAnchors(read(target))],
          `${document} links to ${link.path}#${link.anchor}: no such heading in ${target}`,
        ).toContain(link.anchor);
      }
    }
  });

  it("shows the shipped demo suite file as it is, and the scripted model's answers are a valid script", () => {
    const shown = fencedBlocks(read('docs/CLI.md')).filter((b) => b.lang === 'json' && b.text.includes('"servers"'));
    expect(shown).toHaveLength(1);
    expect(JSON.parse(shown[0].text)).toEqual(JSON.parse(read('examples/demo-suite.json')));

    const scripts = JSON.parse(read('examples/scripted-model.json')) as Record<string, unknown>;
    expect(Object.keys(scripts)).toEqual(['gpt-4.1-mini']);
    for (const script of Object.values(scripts)) expect(() => parseModelScript(script)).not.toThrow();
  });

  it('README.md is a first-hour page: short, with an index that lists every docs page with what it answers', () => {
    const readme = read('README.md');
    // Users read the first screen; the rest lives in docs/, found from the index. A bound, so that it stays so.
    expect(
      readme.split('\n').length,
      'README.md: move sections to docs/ and list them in the index',
    ).toBeLessThanOrEqual(300);
    const start = readme.indexOf('\n## Where to read next\n');
    expect(start, 'README.md has no "## Where to read next" index').toBeGreaterThan(0);
    const end = readme.indexOf('\n## ', start + 1);
    const index = readme.slice(start, end < 0 ? undefined : end);
    const entries = index.split('\n').filter((line) => line.startsWith('- '));
    for (const page of documents.filter((d) => d !== 'README.md')) {
      const entry = entries.find((line) => line.startsWith(`- [${page}](${page})`));
      expect(entry, `README.md's index does not list ${page} as "- [${page}](${page}): what it answers"`).toBeDefined();
      expect(entry, `README.md's index: say in a line what ${page} answers`).toMatch(/\): \S/);
    }
  });
});
