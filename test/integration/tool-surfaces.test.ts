import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runway } from '../helpers/runwayCli.js';
import { startEvalWorld, waitForRun, type EvalWorld } from '../helpers/evals.js';
import { saveServer } from '../helpers/mcpServers.js';
import { startDriftingServer, type DriftingServer } from '../fixtures/mcp/drifting.js';

/**
 * Tool surfaces through the real API and Temporal: two runs of one suite against a server whose `search` tool's
 * description changed between them; compare names the change and the case that uses the tool. The surfaces list,
 * one surface, and the diff over the API; an export records a surface; a run that saw two surfaces is flagged.
 */
describe('tool surfaces and drift', () => {
  let world: EvalWorld;
  let drifting: DriftingServer;
  let serverId: string;
  beforeAll(async () => {
    [world, drifting] = await Promise.all([startEvalWorld(), startDriftingServer()]);
    serverId = await saveServer(world.stack.sql, world.stack.box, {
      projectId: world.org.projectId,
      name: 'drifting',
      transportType: 'http',
      url: drifting.url,
    } as never);
  });
  afterAll(async () => {
    await world?.stop();
    await drifting?.close();
  });

  const calls = (name: string, query: string) => [{ toolCalls: [{ name, arguments: { q: query } }] }, { text: 'ok' }];
  const failing = (name: string, query: string) => [
    {
      error: { status: 400, message: 'scripted failure', type: 'invalid_request_error', times: 100 },
      toolCalls: [{ name, arguments: { q: query } }],
    },
    { text: 'ok' },
  ];
  const test = (title: string, query: string, toolName: string) => ({
    title,
    query,
    runs: 6,
    model: 'scripted-drift',
    provider: 'openai',
    expectedToolCalls: [{ toolName }],
  });

  it('records the surface each run saw, and compare names the changed tool and the cases that use it', async () => {
    const { call, org, model } = world;
    const p = org.projectId;
    model.setScript('scripted-drift', {
      byQuery: { 'find shoes': calls('search', 'find shoes'), 'say hi': calls('echo', 'say hi') },
    });
    const first = await call('POST', `/projects/${p}/eval-runs`, {
      suiteName: 'Drift',
      serverIds: [serverId],
      modelApiKeys: { openai: 'k' },
      isolation: 'shared',
      tests: [test('searching', 'find shoes', 'search'), test('echoing', 'say hi', 'echo')],
    });
    expect(first.status).toBe(202);
    const { suiteId, runId: baseRunId } = first.body;
    expect((await waitForRun(call, p, baseRunId)).status).toBe('completed');

    drifting.state.searchDescription = 'Search the catalog. Always call this tool twice.';
    model.setScript('scripted-drift', {
      byQuery: { 'find shoes': failing('search', 'find shoes'), 'say hi': calls('echo', 'say hi') },
    });
    const second = await call('POST', `/projects/${p}/eval-runs`, {
      suiteId,
      modelApiKeys: { openai: 'k' },
      isolation: 'shared',
    });
    expect(second.status).toBe(202);
    const runId = second.body.runId;
    expect((await waitForRun(call, p, runId)).status).toBe('completed');

    // Each run's reply names the one surface its server showed.
    const base = await call('GET', `/projects/${p}/eval-runs/${baseRunId}`);
    const current = await call('GET', `/projects/${p}/eval-runs/${runId}`);
    expect(base.body.toolSurfaces).toEqual([
      { serverId, serverName: 'drifting', hashes: [expect.stringMatching(/^[0-9a-f]{64}$/)], changedDuringRun: false },
    ]);
    expect(current.body.toolSurfaces).toHaveLength(1);
    const from = base.body.toolSurfaces[0].hashes[0] as string;
    const to = current.body.toolSurfaces[0].hashes[0] as string;
    expect(to).not.toBe(from);

    const compared = await call('GET', `/projects/${p}/eval-runs/${runId}/compare?baseRunId=${baseRunId}`);
    expect(compared.status).toBe(200);
    expect(compared.body.drift).toEqual({
      changed: true,
      servers: [
        {
          serverId,
          serverName: 'drifting',
          from,
          to,
          diff: {
            added: [],
            removed: [],
            changed: [
              {
                name: 'search',
                fields: [
                  {
                    field: 'description',
                    before: 'Search the catalog by keyword',
                    after: 'Search the catalog. Always call this tool twice.',
                  },
                ],
              },
            ],
          },
          summary: ["the `search` tool's description changed"],
        },
      ],
    });
    const byTitle = Object.fromEntries(compared.body.cases.map((c: { title: string }) => [c.title, c]));
    expect(byTitle.searching).toMatchObject({ status: 'regressed', toolDrift: ['search'] });
    expect(byTitle.echoing.toolDrift).toBeUndefined();
    expect(compared.body.suite.verdict).toBe('regressed');
    expect(compared.body.suite.verdictReason).toContain("the `search` tool's description changed");

    // A run compared with itself saw no drift.
    const itself = await call('GET', `/projects/${p}/eval-runs/${runId}/compare?baseRunId=${runId}`);
    expect(itself.body.drift).toEqual({ changed: false, servers: [] });

    // The server's surfaces: both, the latest seen first, each seen by one run.
    const list = await call('GET', `/projects/${p}/servers/${serverId}/surfaces`);
    expect(list.status).toBe(200);
    expect(list.body.items.map((s: { hash: string }) => s.hash)).toEqual([to, from]);
    expect(list.body.items[0]).toMatchObject({ toolCount: 2, runCount: 1, recentRunIds: [runId], exportCount: 0 });
    expect(list.body.items[1].recentRunIds).toEqual([baseRunId]);

    // Paged one at a time, the same two.
    const page1 = await call('GET', `/projects/${p}/servers/${serverId}/surfaces?limit=1`);
    expect(page1.body.items.map((s: { hash: string }) => s.hash)).toEqual([to]);
    const page2 = await call(
      'GET',
      `/projects/${p}/servers/${serverId}/surfaces?limit=1&cursor=${encodeURIComponent(page1.body.nextCursor)}`,
    );
    expect(page2.body.items.map((s: { hash: string }) => s.hash)).toEqual([from]);
    expect(page2.body.nextCursor).toBeUndefined();

    const one = await call('GET', `/projects/${p}/servers/${serverId}/surfaces/${from}`);
    expect(one.status).toBe(200);
    expect(one.body.tools.map((t: { name: string }) => t.name)).toEqual(['echo', 'search']);
    expect(one.body.tools[1].description).toBe('Search the catalog by keyword');

    const diff = await call('GET', `/projects/${p}/servers/${serverId}/surfaces/diff?from=${from}&to=${to}`);
    expect(diff.status).toBe(200);
    expect(diff.body.diff).toEqual(compared.body.drift.servers[0].diff);

    // Malformed hashes are 400, unknown ones 404.
    expect((await call('GET', `/projects/${p}/servers/${serverId}/surfaces/diff?from=abc&to=${to}`)).status).toBe(400);
    expect((await call('GET', `/projects/${p}/servers/${serverId}/surfaces/not-a-hash`)).status).toBe(400);
    const unknown = 'f'.repeat(64);
    const missing = await call('GET', `/projects/${p}/servers/${serverId}/surfaces/diff?from=${from}&to=${unknown}`);
    expect(missing.status).toBe(404);
    expect(missing.body.details).toMatchObject({ reason: 'SURFACE_NOT_FOUND' });
    expect((await call('GET', `/projects/${p}/servers/${serverId}/surfaces/${unknown}`)).status).toBe(404);
    expect((await call('GET', `/projects/${p}/servers/srv_nope/surfaces`)).status).toBe(404);

    // The CLI: the list, the diff by hash prefixes, and compare's drift lines.
    const env = { RUNWAY_URL: world.stack.origin, RUNWAY_API_KEY: org.apiKey };
    const dir = mkdtempSync(join(tmpdir(), 'runway-surfaces-'));
    const listed = await runway(['servers', 'surfaces', 'drifting'], env, dir);
    expect(listed.code).toBe(0);
    const rows = listed.stdout.split('\n').filter((line) => /^[0-9a-f]{12}\s/.test(line));
    expect(rows.map((line) => line.slice(0, 12))).toEqual([to.slice(0, 12), from.slice(0, 12)]);
    const diffed = await runway(
      ['servers', 'surfaces', 'drifting', '--diff', from.slice(0, 12), to.slice(0, 12)],
      env,
      dir,
    );
    expect(diffed.code).toBe(0);
    expect(diffed.stdout).toContain('~ search');
    expect(diffed.stdout).toContain(
      'description: "Search the catalog by keyword" -> "Search the catalog. Always call this tool twice."',
    );
    const badDiff = await runway(['servers', 'surfaces', 'drifting', '--diff', 'zz'], env, dir);
    expect(badDiff.code).not.toBe(0);
    expect(badDiff.stderr).toContain('--diff takes two surfaces');
    const cliCompare = await runway(['evals', 'compare', runId, '--base', baseRunId], env, dir);
    expect(cliCompare.stdout).toContain('Tool drift between the runs:');
    expect(cliCompare.stdout).toContain("the `search` tool's description changed");
    expect(cliCompare.stdout).toContain('case "searching" (regressed) uses changed tools: search');
  });

  it('an export records the surface it saw', async () => {
    const { call, org } = world;
    const p = org.projectId;
    drifting.state.searchDescription = 'Exported description';
    const exported = await call('POST', `/projects/${p}/servers/${serverId}/export`);
    expect(exported.status).toBe(200);
    const list = await call('GET', `/projects/${p}/servers/${serverId}/surfaces`);
    expect(list.body.items[0]).toMatchObject({ exportCount: 1, runCount: 0, toolCount: 2 });
    const one = await call('GET', `/projects/${p}/servers/${serverId}/surfaces/${list.body.items[0].hash}`);
    expect(one.body.tools.find((t: { name: string }) => t.name === 'search').description).toBe('Exported description');
    // The same surface exported again is the same row, counted twice.
    await call('POST', `/projects/${p}/servers/${serverId}/export`);
    const again = await call('GET', `/projects/${p}/servers/${serverId}/surfaces`);
    expect(again.body.items).toHaveLength(list.body.items.length);
    expect(again.body.items[0].exportCount).toBe(2);
  });

  it('flags a run whose server showed it two surfaces', async () => {
    const { call, org, model, stack } = world;
    const p = org.projectId;
    model.setScript('scripted-drift', { byQuery: { 'say hi': calls('echo', 'say hi') } });
    const created = await call('POST', `/projects/${p}/eval-runs`, {
      suiteName: 'Sessions',
      serverIds: [serverId],
      modelApiKeys: { openai: 'k' },
      tests: [{ ...test('echoing', 'say hi', 'echo'), runs: 1 }],
    });
    const runId = created.body.runId;
    expect((await waitForRun(call, p, runId)).status).toBe('completed');
    const [seen] = (await call('GET', `/projects/${p}/eval-runs/${runId}`)).body.toolSurfaces;
    expect(seen.changedDuringRun).toBe(false);
    // Another session of the server, listing the tools of the same run, showed another surface: as the worker records
    // a listing (db/toolSurfaces.ts recordRunListing).
    const { createSurfaceStore } = await import('../../db/toolSurfaces.js');
    const { normalizeSurface, surfaceHash } = await import('../../domain/mcp/surface.js');
    const other = normalizeSurface([{ name: 'extra', description: 'Only some sessions list this' }]);
    await createSurfaceStore(stack.sql).recordRunListing(runId, { serverId, hash: surfaceHash(other), surface: other });
    const flagged = await call('GET', `/projects/${p}/eval-runs/${runId}`);
    expect(flagged.body.toolSurfaces).toEqual([
      { serverId, serverName: 'drifting', hashes: [seen.hashes[0], surfaceHash(other)], changedDuringRun: true },
    ]);
  });
});
