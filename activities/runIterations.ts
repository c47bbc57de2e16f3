import { Context } from '@temporalio/activity';
import type { Db } from '../db/connection.js';
import {
  claimIteration,
  completeIteration,
  fenceIterations,
  getBatchIterations,
  type ClaimFence,
  type IterationCompletion,
} from '../db/evalIterations.js';
import type { SecretBox } from '../domain/ports/secretBox.js';
import type { Logger } from '../runtime/logger.js';
import type { McpOperations } from '../domain/mcp/index.js';
import type { HostedModelCatalog } from '../domain/models/catalog.js';
import type { RateLimitGates } from '../domain/models/rateLimits.js';
import { RunNotFound } from '../domain/evals/runFailures.js';
import { iterationVerdict } from '../domain/evals/verdicts.js';
import { activityFailure, decideRetry, retryFailure } from './retryPolicy.js';
import { collectTools, executeIteration, failedOutcome, IterationFailure } from '../domain/evals/executeIteration.js';
import { recordedTurns, regradeFailed, regradeIteration, regradeOrigin } from '../domain/evals/regrade.js';
import { loadRunContext, type RunContext, type RunContextReads } from '../domain/evals/runContext.js';
import { AttemptLiveness, standstillLimitMs } from './attemptLiveness.js';
import { whileDatabaseAway } from './databaseWait.js';
import type { RunCheckBudgets } from '../domain/evals/checkBudget.js';
import type { SharedWork } from '../domain/evals/sharedWork.js';
import type { RunToolListings } from '../domain/evals/runTools.js';
import type { BatchIteration } from '../domain/evals/iteration.js';
import { sumCosts } from '../domain/models/prices.js';
import type { SurfaceStore } from '../domain/ports/surfaceStore.js';
import { RunSurfaceRecorder } from '../domain/evals/runSurfaces.js';
import type { StoredIteration } from '../runtime/otel/iterationSpans.js';

export interface BatchInput {
  runId: string;
  iterationIds: string[];
  /** the attempt cap: from this attempt on, transient model and MCP failures are recorded as failed iterations */
  lastAttempt: number;
}

/** The batch's iterations by verdict (domain/evals/verdicts.ts): passed, failed and errored are apart. */
export interface BatchResult {
  completed: number;
  passed: number;
  failed: number;
  /** the iterations that could not be scored; absent from the results of batches run before it was counted */
  errored?: number;
  /**
   * total tokens of the iterations counted here: what the batch spent, so the workflow keeps a run's token budget
   * without reading Postgres. Absent from the results of batches run before budgets.
   */
  tokens?: number;
  /**
   * USD the iterations counted here cost, those of an unknown price left out (a run with a money budget has a price for
   * every model it plans): the workflow keeps a run's money budget with it. Absent from results before costs.
   */
  costUsd?: number;
}

/** The heartbeat's details: the counts so far, and the attempts before this one that waited for a rate limit. */
interface BatchProgress extends BatchResult {
  rateLimitedAttempts: number;
}

/** Told about every iteration this process finishes (the worker's metrics); passed in, optional. */
export interface IterationRecorder {
  iterationFinished(outcome: { status: string; result: string | null }): void;
}

/** Told about every iteration this attempt stored (the OpenTelemetry export, runtime/otel); must not throw or block. */
export interface IterationTraceSink {
  iterationStored(stored: StoredIteration): void;
}

export interface BatchDeps {
  sql: Db;
  /** the run, its servers, keys and suite, read once per batch (loadRunContext) */
  setup: RunContextReads;
  box: SecretBox;
  mcp: McpOperations;
  catalog: HostedModelCatalog;
  log: Logger;
  metrics?: IterationRecorder;
  /** this worker's rate-limit gates, shared by every batch (each run's lanes wait together for a provider) */
  rateLimits?: RateLimitGates;
  /** this worker's tool listings, shared by a run's batches that start together; absent: each batch lists */
  toolListings?: RunToolListings;
  /** this worker's reads of a run's context, shared by its batches that start together; absent: each batch reads */
  runContexts?: SharedWork<RunContext | undefined>;
  /** this worker's time budgets of each run's output checks; absent: only each iteration's own budget */
  checkBudgets?: RunCheckBudgets;
  /** where the tool surfaces a run's listings showed are recorded (db/toolSurfaces.ts) */
  surfaces: Pick<SurfaceStore, 'recordRunListing'>;
  /** where stored iterations' traces are exported (runtime/otel/traceExport.ts); absent: nowhere */
  traces?: IterationTraceSink;
}

// Frequent enough that a cancellation reaches a blocked iteration within about a second.
const HEARTBEAT_MS = 1_000;
/**
 * How long one statement of a batch waits for a database that is away (heartbeating, so the attempt lives on);
 * past it the attempt fails and Temporal retries the batch with its backoff.
 */
const DATABASE_WAIT_MS = 5 * 60_000;

/**
 * Runs a batch of a run's iterations, one after the other. Idempotent: an iteration that already finished (an
 * earlier attempt of this batch got that far) is counted, never run again, so the model is not called twice.
 * Heartbeats carry cancellation: when the run is cancelled the signal aborts the model and MCP calls in flight.
 */
export async function runIterationBatch(deps: BatchDeps, input: BatchInput): Promise<BatchResult> {
  const activity = Context.current();
  const signal = activity.cancellationSignal;
  const result: BatchResult = { completed: 0, passed: 0, failed: 0, errored: 0, tokens: 0, costUsd: 0 };
  // Attempts that ended waiting for a provider's rate-limit reset (counted in the heartbeat details, which reach the
  // next attempt) are not failed attempts: they do not count toward the cap.
  const details = activity.info.heartbeatDetails as Partial<BatchProgress> | undefined;
  const rateLimitedAttempts =
    typeof details?.rateLimitedAttempts === 'number' && details.rateLimitedAttempts >= 0
      ? details.rateLimitedAttempts
      : 0;
  // The heartbeat (throttled by the worker) proves liveness and brings cancellation; the details are for operators.
  // It beats from the attempt's first moment: an attempt waiting for the database (below) is alive, not lost.
  const progress = (rateLimited: number): BatchProgress => ({ ...result, rateLimitedAttempts: rateLimited });
  const beat = setInterval(() => activity.heartbeat(progress(rateLimitedAttempts)), HEARTBEAT_MS);
  activity.heartbeat(progress(rateLimitedAttempts));
  // An attempt whose process stood still (paused, starved) claims and stores nothing more (attemptLiveness.ts).
  const liveness = new AttemptLiveness(standstillLimitMs(activity.info.heartbeatTimeoutMs));
  // Every statement of the batch waits out a database that is away (a restart, a crash), heartbeating meanwhile.
  const database = <T>(statement: () => Promise<T>) =>
    whileDatabaseAway(statement, {
      signal,
      maxWaitMs: DATABASE_WAIT_MS,
      onWait: (error, attempt) =>
        deps.log.warn({ runId: input.runId, attempt, err: String(error) }, 'waiting for the database'),
    });
  try {
    return await runBatch(deps, input, { activity, signal, result, rateLimitedAttempts, progress, liveness, database });
  } finally {
    clearInterval(beat);
    liveness.stop();
  }
}

interface Attempt {
  activity: Context;
  signal: AbortSignal;
  /** the batch's counts so far (the heartbeat sends them) */
  result: BatchResult;
  rateLimitedAttempts: number;
  progress: (rateLimited: number) => BatchProgress;
  liveness: AttemptLiveness;
  database: <T>(statement: () => Promise<T>) => Promise<T>;
}

async function runBatch(deps: BatchDeps, input: BatchInput, attempt: Attempt): Promise<BatchResult> {
  const { activity, signal, result, rateLimitedAttempts, progress, liveness, database } = attempt;
  // Two independent reads at once: one round trip less before the batch's first model request. The run's context is
  // read once for its batches that start together in this worker (when the worker shares it).
  const loadContext = () => loadRunContext(deps, input.runId);
  const [ctx, iterations] = await Promise.all([
    database(() => (deps.runContexts ? deps.runContexts.get(input.runId, loadContext) : loadContext())),
    database(() => getBatchIterations(deps.sql, input.runId, input.iterationIds)),
  ]);
  if (!ctx) throw activityFailure(new RunNotFound(input.runId));
  const count = (
    outcome: { status: string; result: 'passed' | 'failed' | null },
    tokens: number,
    costUsd: number | null,
  ) => {
    result.completed += 1;
    result.tokens! += tokens;
    result.costUsd = sumCosts([result.costUsd, costUsd ?? 0])!;
    const verdict = iterationVerdict(outcome);
    if (verdict === 'passed') result.passed += 1;
    else if (verdict === 'errored') result.errored! += 1;
    else result.failed += 1;
  };
  // What an earlier attempt of this batch finished is counted, never run again.
  for (const iteration of iterations)
    if (iteration.status === 'completed' || iteration.status === 'failed')
      count(iteration, iteration.totalTokens, iteration.costUsd);
  // This attempt takes the batch's unfinished iterations from any earlier attempt (a worker paused or cut off from
  // Temporal may still be running one): from here on that attempt can neither claim nor complete them. When a newer
  // attempt already holds them, this one is stale and runs nothing.
  const { workflowExecution, activityRunId, activityId } = activity.info;
  const fence: ClaimFence = {
    owner: `${workflowExecution?.runId ?? activityRunId}/${activityId}`,
    attempt: activity.info.attempt,
  };
  const unfinished =
    ctx.run.status === 'running' ? iterations.filter((i) => i.status === 'pending' || i.status === 'running') : [];
  // A re-grade grades recorded conversations (domain/evals/regrade.ts): it calls neither the run's models nor its
  // servers, so it lists no tools; it reads the recorded turns of its iterations instead.
  const regrading = ctx.run.source === 'regrade';
  const recorded = regrading
    ? await database(() => deps.setup.recordedPrompts(unfinished.map((i) => i.id)))
    : new Map<string, unknown>();
  // Listed once per batch (shared with the run's other batches starting at the same time in this worker, when the
  // worker passes its listings) and shared by its iterations; the iteration that sees a listing fail reports it, and
  // the next one lists again.
  const listTools = () =>
    deps.toolListings
      ? deps.toolListings.list(input.runId, ctx.servers, signal)
      : collectTools(deps.mcp, ctx.servers, signal);
  let tools: ReturnType<typeof collectTools> | undefined;
  const toolsOnce = async () => {
    const listing = (tools ??= listTools());
    let listed: Awaited<typeof listing>;
    try {
      listed = await listing;
    } catch (error) {
      if (tools === listing) tools = undefined;
      throw error;
    }
    surfaces.record(listed.surfaces);
    return listed;
  };
  // The tool surface each listing showed, recorded on the run (once per server and surface in this attempt).
  const surfaces = new RunSurfaceRecorder(input.runId, (runId, sighting) =>
    database(() => deps.surfaces.recordRunListing(runId, sighting)),
  ).onFailure((error) => deps.log.warn({ runId: input.runId, err: String(error) }, 'could not record a tool surface'));
  // Listing starts while the batch fences its iterations: one round trip less before the first model request.
  if (unfinished.length > 0 && !regrading) (tools = listTools()).catch(() => {});
  const held =
    unfinished.length > 0
      ? await database(() =>
          fenceIterations(
            deps.sql,
            input.runId,
            unfinished.map((i) => i.id),
            fence,
          ),
        )
      : new Set<string>();
  const toRun = unfinished.filter((i) => held.has(i.id));

  // An iteration's row is written while the lane's next iteration runs: the next one is claimed first (a short
  // statement), then run, and the write of the one before is awaited (and counted) before the next write starts,
  // so at most one write per batch is in flight and every write has settled when the batch returns or fails.
  let writing: Promise<void> | undefined;
  const settleWrite = async () => {
    const pending = writing;
    writing = undefined;
    await pending;
  };
  const store = (iteration: BatchIteration, outcome: IterationCompletion, startedAt: number) =>
    database(() => completeIteration(deps.sql, iteration.id, outcome, fence, new Date(startedAt))).then((stored) => {
      // Only an outcome this attempt stored is counted: one that a newer attempt holds is that attempt's to count.
      if (!stored.completed) return;
      deps.metrics?.iterationFinished(outcome);
      count(outcome, outcome.usage.totalTokens, outcome.costUsd);
      // Queued for export only once stored, and only by the attempt that stored it: never waited for.
      deps.traces?.iterationStored({ run: ctx.run, iteration, outcome, startedAt });
    });
  try {
    for (const iteration of toRun) {
      // Each iteration is claimed (marked running) before it runs. A claim that finds it finished, or held by a
      // newer attempt, skips it.
      liveness.check();
      if (!(await database(() => claimIteration(deps.sql, iteration.id, fence)))) continue;
      const startedAt = Date.now();
      let outcome: IterationCompletion;
      try {
        outcome = regrading
          ? await regradeIteration(ctx, iteration, recordedTurns(recorded.get(iteration.id)), {
              signal,
              rateLimits: deps.rateLimits,
              checkBudget: deps.checkBudgets?.forRun(input.runId),
              of: regradeOrigin(iteration.metadata),
            })
          : await executeIteration(deps, ctx, iteration, {
              signal,
              tools: toolsOnce,
              rateLimits: deps.rateLimits,
              checkBudget: deps.checkBudgets?.forRun(input.runId),
            });
      } catch (error) {
        const failure = error instanceof IterationFailure ? error.failure : error;
        const decision = decideRetry(failure, {
          attempt: Math.max(1, activity.info.attempt - rateLimitedAttempts),
          lastAttempt: input.lastAttempt,
          signal,
        });
        // Whatever the aborted model or MCP call threw, a cancelled run ends this activity as cancelled.
        if (decision.action === 'cancel') throw signal.aborted ? signal.reason : failure;
        if (decision.action === 'retry') {
          deps.log.warn(
            {
              runId: input.runId,
              iterationId: iteration.id,
              attempt: activity.info.attempt,
              reason: decision.reason,
              delayMs: decision.delayMs,
              err: decision.message,
            },
            'iteration will be retried',
          );
          // Recorded before the failure goes out: the SDK sends pending heartbeat details with the activity's end.
          if (decision.rateLimited) activity.heartbeat(progress(rateLimitedAttempts + 1));
          throw retryFailure(decision, failure);
        }
        outcome = failedOutcome(
          ctx,
          iteration,
          error instanceof IterationFailure ? error : new IterationFailure('model', error),
          decision,
          Date.now() - startedAt,
        );
        if (regrading) outcome = regradeFailed(iteration, outcome);
      }
      await settleWrite();
      liveness.check();
      writing = store(iteration, outcome, startedAt);
      // Handled when settled; until then a failed write must not count as an unhandled rejection (it would end the
      // worker process).
      writing.catch(() => {});
    }
    await settleWrite();
  } finally {
    // On the way out after a failure: the write in flight still lands (or fails) before the activity ends.
    await writing?.catch(() => {});
    await surfaces.settled();
  }
  return result;
}
