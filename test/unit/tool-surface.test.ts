import { describe, expect, it } from 'vitest';
import {
  describeDiff,
  diffSurfaces,
  driftedTools,
  normalizeSurface,
  surfaceHash,
  SURFACE_HASH_PATTERN,
} from '../../domain/mcp/surface.js';
import { jsonBytes } from '../../domain/jsonSize.js';
import { RunSurfaceRecorder, runToolSurfaces } from '../../domain/evals/runSurfaces.js';
import { verdictWithDrift } from '../../domain/evals/compare/drift.js';

const search = {
  name: 'search',
  description: 'Search the catalog',
  inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
};
const echo = { name: 'echo', description: 'Echo', inputSchema: { type: 'object' }, _meta: { x: 1 } };

describe('tool surfaces', () => {
  it('normalizes: tools sorted by name, keys canonical, fields outside the surface left out', () => {
    const surface = normalizeSurface([search, echo]);
    expect(surface.tools.map((t) => t.name)).toEqual(['echo', 'search']);
    expect(surface.tools[0]).toEqual({ name: 'echo', description: 'Echo', inputSchema: { type: 'object' } });
    expect(Object.keys(surface.tools[1].inputSchema as object)).toEqual(['properties', 'required', 'type']);
    expect(surface.truncated).toBeUndefined();
  });

  it('hashes equal surfaces alike whatever the order, and different ones apart', () => {
    const reordered = {
      inputSchema: { required: ['q'], properties: { q: { type: 'string' } }, type: 'object' },
      description: 'Search the catalog',
      name: 'search',
    };
    const a = surfaceHash(normalizeSurface([search, echo]));
    expect(a).toMatch(SURFACE_HASH_PATTERN);
    expect(surfaceHash(normalizeSurface([echo, reordered]))).toBe(a);
    expect(surfaceHash(normalizeSurface([echo, { ...search, description: 'Find things' }]))).not.toBe(a);
    expect(surfaceHash(normalizeSurface([echo]))).not.toBe(a);
  });

  it('keeps the first definition of a name listed twice', () => {
    const surface = normalizeSurface([search, { ...search, description: 'second' }]);
    expect(surface.tools).toHaveLength(1);
    expect(surface.tools[0].description).toBe('Search the catalog');
  });

  it('bounds a hostile listing: the tools past the cap left out, a huge schema cut, both said', () => {
    const many = Array.from({ length: 50 }, (_, i) => ({ name: `t${String(i).padStart(3, '0')}`, description: 'x' }));
    const huge = {
      name: 'huge',
      description: 'big',
      inputSchema: { type: 'object', description: 'y'.repeat(100_000) },
    };
    const surface = normalizeSurface([...many, huge], { maxTools: 20, maxToolBytes: 4096, maxSurfaceBytes: 1 << 20 });
    expect(surface.tools).toHaveLength(20);
    expect(surface.tools[0].name).toBe('huge');
    expect(jsonBytes(surface.tools[0])).toBeLessThanOrEqual(4096);
    expect(surface.truncated).toEqual({ reason: 'SURFACE_TOO_LARGE', omittedTools: 31, cutTools: ['huge'] });

    expect(normalizeSurface([echo], undefined, { cut: true }).truncated).toEqual({
      reason: 'SURFACE_TOO_LARGE',
      omittedTools: 0,
      cutTools: [],
      listCut: true,
    });

    const budget = normalizeSurface(many, { maxTools: 1000, maxToolBytes: 4096, maxSurfaceBytes: 300 });
    expect(jsonBytes(budget.tools)).toBeLessThanOrEqual(300);
    expect(budget.truncated?.omittedTools).toBe(50 - budget.tools.length);
  });

  it('diffs tools added, removed, and changed field by field with JSON pointers in schemas', () => {
    const before = normalizeSurface([search, echo]);
    const after = normalizeSurface([
      {
        ...search,
        description: 'Find things',
        inputSchema: {
          type: 'object',
          properties: { q: { type: 'string', minLength: 1 }, 'a/b': { type: 'number' } },
          required: ['q'],
        },
        annotations: { readOnlyHint: true },
      },
      { name: 'fetch', description: 'Fetch' },
    ]);
    const diff = diffSurfaces(before, after);
    expect(diff.added).toEqual(['fetch']);
    expect(diff.removed).toEqual(['echo']);
    expect(diff.changed).toEqual([
      {
        name: 'search',
        fields: [
          { field: 'description', before: 'Search the catalog', after: 'Find things' },
          { field: 'inputSchema', path: '/properties/a~1b', after: { type: 'number' } },
          { field: 'inputSchema', path: '/properties/q/minLength', after: 1 },
          { field: 'annotations', after: { readOnlyHint: true } },
        ],
      },
    ]);
    expect([...driftedTools(diff)].sort()).toEqual(['echo', 'fetch', 'search']);
    expect(describeDiff(diff)).toContain("the `search` tool's description, inputSchema, annotations changed");
    expect(diffSurfaces(before, before)).toEqual({ added: [], removed: [], changed: [] });
  });

  it('bounds the values and the number of changes a diff answers with', () => {
    const a = normalizeSurface([{ name: 't', description: 'a'.repeat(10_000) }]);
    const b = normalizeSurface([{ name: 't', description: 'b'.repeat(10_000) }]);
    const [change] = diffSurfaces(a, b, { maxValueBytes: 100, maxChangesPerTool: 10 }).changed[0].fields;
    expect(jsonBytes(change.before)).toBeLessThanOrEqual(100);
    expect(jsonBytes(change.after)).toBeLessThanOrEqual(100);

    const props = (v: number) =>
      Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${i}`, { type: 'string', maxLength: v }]));
    const x = normalizeSurface([{ name: 't', inputSchema: { type: 'object', properties: props(1) } }]);
    const y = normalizeSurface([{ name: 't', inputSchema: { type: 'object', properties: props(2) } }]);
    const tool = diffSurfaces(x, y, { maxValueBytes: 100, maxChangesPerTool: 10 }).changed[0];
    expect(tool.fields).toHaveLength(10);
    expect(tool.omittedChanges).toBe(20);
  });
});

describe("recording a run's surfaces", () => {
  const sighting = (serverId: string, tools: { name: string; description?: string }[]) => {
    const surface = normalizeSurface(tools);
    return { serverId, hash: surfaceHash(surface), surface };
  };

  it('writes each server and surface once per batch, and again after a write that failed', async () => {
    const writes: string[] = [];
    let fail = true;
    const failures: unknown[] = [];
    const recorder = new RunSurfaceRecorder('run_1', async (runId, s) => {
      if (fail) {
        fail = false;
        throw new Error('database away');
      }
      writes.push(`${runId}:${s.serverId}:${s.hash.slice(0, 6)}`);
    }).onFailure((error) => failures.push(error));
    const a = sighting('srv_a', [{ name: 'search' }]);
    const b = sighting('srv_a', [{ name: 'search', description: 'changed' }]);
    recorder.record([a]);
    await recorder.settled();
    expect(failures).toHaveLength(1);
    recorder.record([a]);
    recorder.record([a]);
    recorder.record([a, b]);
    await recorder.settled();
    expect(writes).toEqual([`run_1:srv_a:${a.hash.slice(0, 6)}`, `run_1:srv_a:${b.hash.slice(0, 6)}`]);
  });

  it('flags a server that showed the run more than one surface', () => {
    const at = new Date(0);
    const row = (serverId: string, hash: string) => ({
      runId: 'run_1',
      serverId,
      serverName: serverId.toUpperCase(),
      hash,
      listings: 1,
      firstSeenAt: at,
      lastSeenAt: at,
    });
    expect(runToolSurfaces([row('a', 'h1'), row('a', 'h2'), row('b', 'h3')])).toEqual([
      { serverId: 'a', serverName: 'A', hashes: ['h1', 'h2'], changedDuringRun: true },
      { serverId: 'b', serverName: 'B', hashes: ['h3'], changedDuringRun: false },
    ]);
  });

  it("says the drift after a comparison's verdict, at most three changes by name", () => {
    const diff = { added: ['a', 'b', 'c'], removed: ['d'], changed: [] };
    const drift = {
      changed: true,
      servers: [{ serverId: 's', serverName: 's', from: 'x', to: 'y', diff, summary: describeDiff(diff) }],
    };
    expect(verdictWithDrift('1 case regressed', drift)).toBe(
      '1 case regressed — and between the runs: tool `a` added; tool `b` added; tool `c` added; and 1 more changes',
    );
    expect(verdictWithDrift('no change', { changed: false, servers: [] })).toBe('no change');
  });
});
