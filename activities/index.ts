import { hostname } from 'node:os';
import { Context } from '@temporalio/activity';
import type { Sql } from '../db/connection.js';
import type { RunSetupStore } from '../domain/ports/runSetupStore.js';
import type { SecretBox } from '../domain/ports/secretBox.js';
import type { Config } from '../runtime/config.js';
import { START_FAILED, type FinalizeInput, type FinalizeRun } from '../domain/useCases/runs/finalizeRun.js';
import { planRun } from '../domain/evals/plan.js';
import { adaptiveRound, type AdaptiveRoundInput } from '../domain/useCases/runs/adaptiveRound.js';
import { asActivity } from './retryPolicy.js';
import { conformanceActivities, type ConformanceActivityDeps } from './conformanceCheck.js';
import { webhookActivities, type WebhookActivityDeps } from './webhookDelivery.js';
import type { SurfaceStore } from '../domain/ports/surfaceStore.js';
import {
  runIterationBatch,
  type BatchInput,
  type IterationRecorder,
  type IterationTraceSink,
} from './runIterations.js';
import type { Logger } from '../runtime/logger.js';
import type { McpOperations } from '../domain/mcp/index.js';
import type { HostedModelCatalog } from '../domain/models/catalog.js';
import { RateLimitGates } from '../domain/models/rateLimits.js';
import { RunToolListings } from '../domain/evals/runTools.js';
import { SharedWork } from '../domain/evals/sharedWork.js';
import { RunCheckBudgets } from '../domain/evals/checkBudget.js';
import type { RunContext } from '../domain/evals/runContext.js';
import type { ScheduledRunRecorder, StartScheduledRun } from '../domain/useCases/runs/startScheduledRun.js';
import type { ScheduledSuiteRunInput } from '../domain/ports/runWorkflows.js';
import { retentionActivities } from './retention.js';
import type { ApplyRetention, RetentionRecorder } from '../domain/useCases/retention/applyRetention.js';

export interface ActivityDeps {
  sql: Sql;
  box: SecretBox;
  config: Config;
  log: Logger;
  /** the same MCP operations the API calls (listAllTools, callTool, ...), on this process's connection pool */
  mcp: McpOperations;
  /** counts finished iterations and scheduled runs (the worker's Prometheus metrics); optional */
  metrics?: IterationRecorder & ScheduledRunRecorder & RetentionRecorder;
  /** the hosted models (HOSTED_MODELS), parsed once by the worker's composition */
  catalog: HostedModelCatalog;
  /** what planning a run and loading what its batches run with read and write (db/runSetupStore.ts) */
  setup: RunSetupStore;
  /** the one way a run ends (domain/useCases/runs/finalizeRun.ts) */
  finalizeRun: FinalizeRun;
  /** a suite's schedule came due (domain/useCases/runs/startScheduledRun.ts) */
  startScheduledRun: StartScheduledRun;
  /** where eval runs record the tool surfaces their servers showed (db/toolSurfaces.ts) */
  surfaces: Pick<SurfaceStore, 'recordRunListing'>;
  /** conformance checks of saved servers (issue 32): their store, the servers, the suite's runner */
  conformance: ConformanceActivityDeps;
  /** where stored iterations' traces are exported (runtime/otel/traceExport.ts); absent: nowhere */
  traces?: IterationTraceSink;
  /** a retention pass, a few batches at a time (domain/useCases/retention/applyRetention.ts; issue 33) */
  retention: ApplyRetention;
  /** signed webhooks' deliveries (issue 33): their store, the outbound rules, the attempt's time limit */
  webhooks: WebhookActivityDeps;
}

/**
 * The worker's activities, built from dependencies passed in: the worker's composition (worker/createWorker.ts
 * composeActivities) builds them once per process, and tests compose real ones the same way.
 */
export function createActivities(deps: ActivityDeps) {
  const { sql, config, catalog } = deps;
  // One per worker process: every batch of a run in this worker waits at the same gate while a provider limits.
  const rateLimits = new RateLimitGates({ maxWaitMs: config.MODEL_RATE_LIMIT_WAIT_MS });
  // One per worker process: a run's batches that start together list its servers' tools once.
  const toolListings = new RunToolListings(deps.mcp);
  // ...and reads its context (run, servers, keys) once, while the read is in flight (kept no longer: a batch sees
  // the run as it is when it starts).
  const runContexts = new SharedWork<RunContext | undefined>({ keepMs: 0 });
  // ...and bounds the time each run's output checks take in this process (issue 27): past it they fail, saying why.
  const checkBudgets = new RunCheckBudgets();
  const lookAgain = adaptiveRound({ setup: deps.setup });
  return {
    async ping(): Promise<{ databaseTime: string; worker: string }> {
      const [row] = await sql<{ now: Date }[]>`SELECT now()`;
      return { databaseTime: row.now.toISOString(), worker: `${hostname()}:${process.pid}` };
    },

    /** Writes the run's pending iterations (once) and says how to batch them. */
    async planRun({ runId }: { runId: string }) {
      return await asActivity(() => planRun(deps.setup, runId, { concurrency: config.EVAL_ITERATION_CONCURRENCY }));
    },

    /** An adaptive run's look after a round: stops decided cases, plans the next round of the open ones. */
    async adaptiveRound(input: AdaptiveRoundInput) {
      return await asActivity(() => lookAgain(input));
    },

    async runIterationBatch(input: BatchInput) {
      return await runIterationBatch(
        {
          ...deps,
          catalog,
          rateLimits,
          toolListings,
          runContexts,
          checkBudgets,
          log: deps.log.child({ runId: input.runId, attempt: Context.current().info.attempt }),
        },
        input,
      );
    },

    async finalizeRun(input: FinalizeInput) {
      return await asActivity(() => deps.finalizeRun(input));
    },

    /** A suite's schedule came due: create its run as POST /eval-runs would, or record why it was skipped. */
    async startScheduledRun(input: ScheduledSuiteRunInput) {
      return await deps.startScheduledRun(input);
    },

    /** The scheduled run's workflow could not be started: the run ends as failed, as POST /eval-runs ends it. */
    async failScheduledRunStart({ runId }: { runId: string }) {
      await asActivity(() => deps.finalizeRun({ runId, outcome: 'failed', error: START_FAILED }));
    },

    ...conformanceActivities(deps.conformance),

    ...retentionActivities({ applyRetention: deps.retention }),
    ...webhookActivities(deps.webhooks),
  };
}

export type Activities = ReturnType<typeof createActivities>;
