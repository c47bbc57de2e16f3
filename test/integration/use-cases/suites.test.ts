import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertRun } from '../../../db/evalRuns.js';
import { SecretBox } from '../../../db/secretBox.js';
import { createServer } from '../../../db/servers.js';
import { createSuiteStore } from '../../../db/suiteStore.js';
import type { McpOperations } from '../../../domain/mcp/index.js';
import type { SuiteSchedules, SuiteScheduleTarget } from '../../../domain/ports/suiteSchedules.js';
import type { ServerDirectory } from '../../../domain/ports/serverDirectory.js';
import type { SuiteStore } from '../../../domain/ports/suiteStore.js';
import type { Principal } from '../../../domain/principal.js';
import type { PageCursors } from '../../../domain/useCases/catalog/listChatSessions.js';
import { createSuite } from '../../../domain/useCases/suites/createSuite.js';
import { deleteSuite } from '../../../domain/useCases/suites/deleteSuite.js';
import { editSuite } from '../../../domain/useCases/suites/editSuite.js';
import { getSuite } from '../../../domain/useCases/suites/getSuite.js';
import { getSuiteOverview } from '../../../domain/useCases/suites/getSuiteOverview.js';
import { listSuiteRuns } from '../../../domain/useCases/suites/listSuiteRuns.js';
import { listSuites } from '../../../domain/useCases/suites/listSuites.js';
import { setSuiteSchedule } from '../../../domain/useCases/suites/setSuiteSchedule.js';
import { createSuiteBody } from '../../../api/schemas/evals.js';
import { createServerDirectory } from '../../../db/serverDirectory.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { seedOrganization, type SeededOrganization } from '../../helpers/seed.js';
import type { Run } from '../../../domain/evals/run.js';

// The suite stories (domain/useCases/suites), run without HTTP on a fresh database, with the schedule service,
// the MCP client and the run reconciler as fakes.

const principalOf = (org: SeededOrganization): Principal => ({
  keyId: org.keyId,
  userId: org.userId,
  organizationId: org.organizationId,
  orgRole: 'owner',
});

/** Readable cursors (the API seals them; the story only needs them bound to its scope). */
const cursors: PageCursors = {
  encode: (scope, position) => JSON.stringify([scope, position]),
  decode<T>(scope: string, cursor: string): T {
    const [bound, position] = JSON.parse(cursor) as [string, T];
    if (bound !== scope) throw new Error(`cursor of ${bound}, not ${scope}`);
    return position;
  },
};

/** An MCP client whose every server lists one tool, `echo`. */
const mcp = {
  listAllTools: async () => [{ name: 'echo', description: 'echoes', inputSchema: { type: 'object' } }],
} as unknown as McpOperations;

/** A schedule service that remembers what it was told. */
function recordingSchedules(failApply = false) {
  const applied: SuiteScheduleTarget[] = [];
  const removed: string[] = [];
  const schedules: SuiteSchedules = {
    async apply(target) {
      if (failApply) throw new Error('temporal away');
      applied.push(target);
    },
    async remove(suiteId) {
      removed.push(suiteId);
    },
  };
  return { schedules, applied, removed };
}

const quiet = { warn: () => undefined } as never;

describe('suite use cases', () => {
  let db: TestDatabase;
  let org: SeededOrganization;
  let other: SeededOrganization;
  let principal: Principal;
  let serverId: string;
  let suites: SuiteStore;
  let suiteServers: ServerDirectory;
  const box = SecretBox.fromSetting(SecretBox.generateKey());
  const suiteInput = (more: Record<string, unknown> = {}) =>
    createSuiteBody.parse({
      name: 'Echo',
      serverIds: [serverId],
      model: 'openai/gpt-4.1-mini',
      tests: [
        { title: 'echo', query: 'echo hi', expectedToolCalls: ['echo'] },
        { title: 'missing', query: 'use the missing tool', expectedToolCalls: ['nope'] },
      ],
      ...more,
    });

  beforeAll(async () => {
    db = await createTestDatabase();
    suites = createSuiteStore(db.sql, box);
    suiteServers = createServerDirectory(db.sql, box);
    org = await seedOrganization(db.sql);
    other = await seedOrganization(db.sql);
    principal = principalOf(org);
    serverId = (
      await createServer(db.sql, box, {
        projectId: org.projectId,
        name: 'local',
        transportType: 'stdio',
        command: '/bin/true',
      })
    ).id;
  });
  afterAll(async () => db?.drop());

  it('createSuite writes the suite with its cases and warns about tools no server lists', async () => {
    const created = await createSuite({ suites, servers: suiteServers, mcp })({
      principal,
      projectId: org.projectId,
      suite: suiteInput(),
    });
    expect(created).toMatchObject({
      name: 'Echo',
      servers: [{ id: serverId, name: 'local' }],
      caseUpsert: { failed: [] },
      warnings: [{ reason: 'UNKNOWN_TOOL', toolName: 'nope', testTitle: 'missing' }],
    });
    expect(created.caseUpsert.committed).toHaveLength(2);
    const listed = await listSuites({ suites })({ principal, projectId: org.projectId });
    expect(listed.map((s) => s.id)).toContain(created.suiteId);
    const { suite, servers } = await getSuite({ suites })({
      principal,
      projectId: org.projectId,
      suiteId: created.suiteId,
    });
    expect(suite).toMatchObject({ id: created.suiteId, serverIds: [serverId], scheduleEnabled: false });
    expect(servers.map((s) => s.id)).toEqual([serverId]);
  });

  it('createSuite refuses a host or servers the project does not have, and a key of another organization', async () => {
    const create = createSuite({ suites, servers: suiteServers, mcp });
    await expect(
      create({ principal, projectId: org.projectId, suite: suiteInput({ hostId: 'hst_nope' }) }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND', details: { hostId: 'hst_nope' } });
    await expect(
      create({ principal, projectId: org.projectId, suite: suiteInput({ serverIds: ['srv_nope'] }) }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      create({ principal: principalOf(other), projectId: org.projectId, suite: suiteInput() }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('editSuite changes the suite and renames its schedule; a schedule service away does not fail the edit', async () => {
    const { suiteId } = await createSuite({ suites, servers: suiteServers, mcp })({
      principal,
      projectId: org.projectId,
      suite: suiteInput(),
    });
    const recorded = recordingSchedules();
    const ids = { principal, projectId: org.projectId, suiteId };
    await setSuiteSchedule({ suites, schedules: recorded.schedules })({
      ...ids,
      enabled: true,
      intervalMinutes: 5,
    });
    const edited = await editSuite({ suites, servers: suiteServers, schedules: recorded.schedules, log: quiet })({
      ...ids,
      changes: { name: 'Renamed', description: null },
    });
    expect(edited.suite).toMatchObject({ name: 'Renamed', description: '', scheduleIntervalMinutes: 5 });
    expect(recorded.applied.at(-1)).toMatchObject({ suiteId, suiteName: 'Renamed', enabled: true, intervalMinutes: 5 });
    const away = recordingSchedules(true);
    const again = await editSuite({ suites, servers: suiteServers, schedules: away.schedules, log: quiet })({
      ...ids,
      changes: { name: 'Again' },
    });
    expect(again.suite.name).toBe('Again');
    await expect(
      editSuite({ suites, servers: suiteServers, schedules: away.schedules, log: quiet })({
        ...ids,
        changes: { hostId: 'hst_nope' },
      }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('setSuiteSchedule keeps the wanted state only once the schedule service took it, and refuses a suite without servers', async () => {
    const { suiteId } = await createSuite({ suites, servers: suiteServers, mcp })({
      principal,
      projectId: org.projectId,
      suite: suiteInput(),
    });
    const ids = { principal, projectId: org.projectId, suiteId };
    const away = recordingSchedules(true);
    await expect(
      setSuiteSchedule({ suites, schedules: away.schedules })({ ...ids, enabled: true, intervalMinutes: 3 }),
    ).rejects.toThrow('temporal away');
    expect((await getSuite({ suites })(ids)).suite.scheduleIntervalMinutes).toBeNull();
    const recorded = recordingSchedules();
    const paused = await setSuiteSchedule({ suites, schedules: recorded.schedules })({
      ...ids,
      enabled: false,
      intervalMinutes: 7,
    });
    expect(paused.suite).toMatchObject({ scheduleEnabled: false, scheduleIntervalMinutes: 7 });
    const enabled = await setSuiteSchedule({ suites, schedules: recorded.schedules })({ ...ids, enabled: true });
    expect(enabled.suite).toMatchObject({ scheduleEnabled: true, scheduleIntervalMinutes: 7 });
    expect(recorded.applied.map((t) => t.enabled)).toEqual([false, true]);

    await db.sql`UPDATE eval_suites SET server_ids = '{}' WHERE id = ${suiteId}`;
    await expect(
      setSuiteSchedule({ suites, schedules: recorded.schedules })({ ...ids, enabled: true, intervalMinutes: 1 }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR', details: { reason: 'NO_SAVED_SERVER_SELECTION' } });
    await expect(
      setSuiteSchedule({ suites, schedules: recorded.schedules })({ ...ids, suiteId: 'sui_nope', enabled: false }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('deleteSuite is refused while a run runs, ends runs whose workflow closed, and removes the schedule with the suite', async () => {
    const { suiteId } = await createSuite({ suites, servers: suiteServers, mcp })({
      principal,
      projectId: org.projectId,
      suite: suiteInput(),
    });
    const ids = { principal, projectId: org.projectId, suiteId };
    const run = await db.sql.begin((tx) =>
      insertRun(tx, {
        suiteId,
        projectId: org.projectId,
        organizationId: org.organizationId,
        source: 'api',
        passCriteria: { minimumPassRate: 100 },
        serverIds: [serverId],
      }),
    );
    expect(await listSuiteRuns({ suites })({ ...ids, limit: 10 })).toEqual([
      { run: expect.objectContaining({ id: run.id, status: 'running' }), progress: expect.any(Object) },
    ]);
    const recorded = recordingSchedules();
    const stillRunning = { reconcile: async (r: Run) => r };
    await expect(
      deleteSuite({ suites, schedules: recorded.schedules, reconciler: stillRunning })(ids),
    ).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringContaining(`cancel it (POST /eval-runs/${run.id}/cancel)`),
      details: { reason: 'SUITE_HAS_RUNNING_RUNS', suiteId, runIds: [run.id] },
    });
    expect(recorded.removed).toEqual([]);

    // The reconciler finds the workflow closed and ends the run: the deletion goes through.
    const ended = {
      async reconcile(r: Run) {
        await db.sql`UPDATE eval_runs SET status = 'cancelled' WHERE id = ${r.id}`;
        return { ...r, status: 'cancelled' as const };
      },
    };
    expect(await deleteSuite({ suites, schedules: recorded.schedules, reconciler: ended })(ids)).toEqual({
      id: suiteId,
    });
    expect(recorded.removed).toEqual([suiteId]);
    await expect(getSuite({ suites })(ids)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(deleteSuite({ suites, schedules: recorded.schedules, reconciler: ended })(ids)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('getSuiteOverview pages the cases with a cursor bound to the suite, each with its history', async () => {
    const { suiteId } = await createSuite({ suites, servers: suiteServers, mcp })({
      principal,
      projectId: org.projectId,
      suite: suiteInput(),
    });
    const overview = getSuiteOverview({ suites, cursors });
    const ids = { principal, projectId: org.projectId, suiteId, limit: 10 };
    const first = await overview({ ...ids, casesLimit: 1 });
    expect(first.detail.suite.id).toBe(suiteId);
    expect(first.runs).toEqual([]);
    expect(first.cases).toEqual([{ id: expect.any(String), title: 'echo', history: [] }]);
    const second = await overview({ ...ids, casesLimit: 1, casesCursor: first.casesNextCursor });
    expect(second.cases.map((c) => c.title)).toEqual(['missing']);
    expect(second.casesNextCursor).toBeUndefined();
    await expect(overview({ ...ids, suiteId: 'sui_nope', casesLimit: 1, casesCursor: 'x' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});
