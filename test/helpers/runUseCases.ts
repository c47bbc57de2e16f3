import { SecretBox } from '../../db/secretBox.js';
import { createRunStore, createScheduledSuites } from '../../db/runStore.js';
import { promoteQueuedRuns } from '../../domain/useCases/runs/promoteQueuedRuns.js';
import { createRunSetupStore } from '../../db/runSetupStore.js';
import { createRunBody } from '../../api/schemas/evals.js';
import { parseHostedModels } from '../../domain/models/catalog.js';
import type { McpOperations } from '../../domain/mcp/index.js';
import type { RunStore } from '../../domain/ports/runStore.js';
import type { RunWorkflows } from '../../domain/ports/runWorkflows.js';
import { finalizeRun } from '../../domain/useCases/runs/finalizeRun.js';
import { startRun, type StartRunDeps } from '../../domain/useCases/runs/startRun.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { everythingOverStdio, saveServer } from './mcpServers.js';
import { seedOrganization, type SeededOrganization } from './seed.js';
import type { Principal } from '../../domain/principal.js';

/** The key the tests' secrets are sealed with (as the stacks use). */
export const TEST_ENCRYPTION_KEY = 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=';

/** What the run use cases' tests share: a database of their own, an organization, a saved server. No Temporal, no HTTP. */
export interface RunsWorld {
  db: TestDatabase;
  sql: TestDatabase['sql'];
  /** the run use cases' storage, on the test database */
  runs: RunStore;
  box: SecretBox;
  org: SeededOrganization;
  principal: Principal;
  serverId: string;
  /** what startRun needs besides its workflows (the run cap, the catalog, the keys) */
  creation: Omit<StartRunDeps, 'workflows' | 'finalizeRun'>;
  /** starts runs as POST /eval-runs does, the workflows recorded instead of started */
  started: Parameters<RunWorkflows['start']>[];
  /** a run of one new suite of `tests` (inline tests, provider openai, a per-run key), its workflow recorded */
  runOf(tests: Record<string, unknown>[], more?: Record<string, unknown>): ReturnType<ReturnType<typeof startRun>>;
  stop(): Promise<void>;
}

export async function startRunsWorld(): Promise<RunsWorld> {
  const db = await createTestDatabase();
  const box = SecretBox.fromSetting(TEST_ENCRYPTION_KEY);
  const org = await seedOrganization(db.sql);
  const principal: Principal = {
    keyId: org.keyId,
    userId: org.userId,
    organizationId: org.organizationId,
    orgRole: 'owner',
  };
  const serverId = await saveServer(db.sql, box, {
    projectId: org.projectId,
    name: 'everything',
    ...everythingOverStdio(),
  });
  const creation: RunsWorld['creation'] = {
    runs: createRunStore(db.sql),
    setup: createRunSetupStore(db.sql, box),
    box,
    catalog: parseHostedModels(''),
    // no case of these tests expects a tool, so no server is listed
    mcp: {} as McpOperations,
    maxConcurrentRuns: 1000,
    reconcileAtCap: async () => 0,
    defaultConcurrency: 2,
  };
  const started: RunsWorld['started'] = [];
  const workflows: Pick<RunWorkflows, 'start'> = { start: async (...args) => void started.push(args) };
  const endRun = finalizeRun({ runs: createRunStore(db.sql) });
  const start = startRun({
    ...creation,
    workflows,
    finalizeRun: endRun,
    queue: promoteQueuedRuns({
      setup: creation.setup,
      suites: createScheduledSuites(db.sql),
      workflows,
      finalizeRun: endRun,
      maxConcurrentRuns: creation.maxConcurrentRuns,
      defaultConcurrency: creation.defaultConcurrency,
      log: { info: () => {}, warn: () => {} },
    }),
  });
  let suites = 0;
  return {
    db,
    sql: db.sql,
    runs: createRunStore(db.sql),
    box,
    org,
    principal,
    serverId,
    creation,
    started,
    runOf: (tests, more = {}) =>
      start({
        principal,
        projectId: org.projectId,
        request: createRunBody.parse({
          suiteName: `suite ${++suites}`,
          serverIds: [serverId],
          modelApiKeys: { openai: 'sk-run' },
          tests: tests.map((t, i) => ({
            title: `case ${i + 1}`,
            query: `query ${i + 1}`,
            provider: 'openai',
            model: 'model-a',
            ...t,
          })),
          ...more,
        }),
      }),
    stop: () => db.drop(),
  };
}

/** Ends iterations as the worker would (the trigger gives each its stream position): by title, in this order. */
export async function finishIterations(
  sql: TestDatabase['sql'],
  runId: string,
  outcomes: {
    title: string;
    model?: string;
    status?: 'completed' | 'failed';
    result?: 'passed' | 'failed' | null;
    expected?: { toolName: string }[];
    called?: { toolName: string }[];
    trace?: Record<string, unknown>;
  }[],
): Promise<string[]> {
  const ids: string[] = [];
  for (const o of outcomes) {
    const [row] = await sql<{ id: string }[]>`
      UPDATE eval_iterations SET status = ${o.status ?? 'completed'}, result = ${o.status === 'failed' ? null : (o.result ?? 'passed')},
        duration_ms = 100, input_tokens = 10, output_tokens = 5, total_tokens = 15, started_at = now(),
        ${o.expected ? sql`expected_tool_calls = ${sql.json(o.expected)},` : sql``}
        actual_tool_calls = ${sql.json(o.called ?? [])}, updated_at = clock_timestamp()
      WHERE id = (SELECT id FROM eval_iterations WHERE run_id = ${runId} AND title = ${o.title} AND status = 'pending'
                  ${o.model ? sql`AND model = ${o.model}` : sql``} ORDER BY seq LIMIT 1)
      RETURNING id`;
    if (!row) throw new Error(`no pending iteration ${o.title} in run ${runId}`);
    if (o.trace)
      await sql`INSERT INTO eval_traces (iteration_id, trace) VALUES (${row.id}, ${sql.json(o.trace as never)})`;
    ids.push(row.id);
  }
  return ids;
}
