import type { Db } from '../../db/connection.js';
import {
  finalizeRun as finalizeRunUseCase,
  type FinalizeInput,
  type FinalizeResult,
} from '../useCases/runs/finalizeRun.js';

export { NOT_RUN_BUDGET, type FinalizeInput, type FinalizeResult } from '../useCases/runs/finalizeRun.js';

/**
 * The finalize use case (domain/useCases/runs/finalizeRun.ts) on a connection or a transaction, under its former
 * name: ingest (domain/ingest/runs.ts) ends a run it has locked with it, on its own transaction. New callers take
 * the use case (`finalizeRun({ sql })`) instead.
 */
export async function finalizeRun(sql: Db, input: FinalizeInput): Promise<FinalizeResult> {
  return await finalizeRunUseCase({ sql })(input);
}
