import { hostname } from 'node:os';
import { Context } from '@temporalio/activity';
import type { Sql } from '../db/connection.js';
import type { SecretBox } from '../db/secretBox.js';
import type { Config } from './config.js';
import { finalizeRun, type FinalizeInput } from './evals/finalize.js';
import { planRun } from './evals/plan.js';
import { runIterationBatch, type BatchInput, type IterationRecorder } from './evals/runIterations.js';
import type { Logger } from './logger.js';
import type { McpOperations } from './mcp/index.js';
import { parseHostedModels } from './models/catalog.js';

export interface ActivityDeps {
  sql: Sql;
  box: SecretBox;
  config: Config;
  log: Logger;
  /** the same MCP operations the API calls (listAllTools, callTool, ...), on this process's connection pool */
  mcp: McpOperations;
  /** counts finished iterations (the worker's Prometheus metrics); optional */
  metrics?: IterationRecorder;
}

/** The worker's activities, built from dependencies passed in (tests compose real ones the same way). */
export function createActivities(deps: ActivityDeps) {
  const { sql, config } = deps;
  const catalog = parseHostedModels(config.HOSTED_MODELS);
  return {
    async ping(): Promise<{ databaseTime: string; worker: string }> {
      const [row] = await sql<{ now: Date }[]>`SELECT now()`;
      return { databaseTime: row.now.toISOString(), worker: `${hostname()}:${process.pid}` };
    },

    /** Writes the run's pending iterations (once) and says how to batch them. */
    async planRun({ runId }: { runId: string }) {
      return await planRun(sql, runId, { concurrency: config.EVAL_ITERATION_CONCURRENCY });
    },

    async runIterationBatch(input: BatchInput) {
      return await runIterationBatch({ ...deps, catalog, log: deps.log.child({ runId: input.runId, attempt: Context.current().info.attempt }) }, input);
    },

    async finalizeRun(input: FinalizeInput) {
      return await finalizeRun(sql, input);
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
