import type { Client } from '@temporalio/client';
import type { Logger } from '../activities/logger.js';
import type { Sql } from '../db/connection.js';
import type { RunRow } from '../db/evalRuns.js';

export interface RunReconcilerDeps {
  sql: Sql;
  temporal: Client;
  log: Logger;
}

/** Ends runs whose row says running while their workflow is closed in Temporal (to be built). */
export class RunReconciler {
  constructor(private readonly deps: RunReconcilerDeps) {}

  async onRead(run: RunRow): Promise<RunRow> {
    return run;
  }

  async reconcileOrganization(_organizationId: string): Promise<number> {
    return 0;
  }

  async sweep(_quietMs: number): Promise<number> {
    return 0;
  }
}

export function startRunSweep(_reconciler: RunReconciler, _options: { intervalMs: number; log: Logger }): { stop(): Promise<void> } {
  return { async stop() {} };
}
