/**
 * What passed, failed and errored mean, for an iteration and for a case: the one definition that the API's counts
 * (a run's `progress`, db/evalRuns.ts; its `summary`, statistics.ts), ingest (domain/ingest/results.ts), the `runway`
 * CLI (progress line, table, JUnit file) and the console follow. docs/EVALS.md says it for users ("Passed, failed,
 * errored"). Pure and without imports: the console bundles it as it is.
 *
 * An iteration is exactly one of:
 * - passed: it ran, was scored, and met the case's expectations (status `completed`, result `passed`);
 * - failed: it ran, was scored, and did not meet them (status `completed`, result `failed`): missing or unexpected
 *   tool calls, mismatched arguments, a tool error the case does not allow, an output check that failed;
 * - errored: it could not be scored: the model, the provider, an MCP server or Runway broke before it finished
 *   (status `failed`; its result says `failed`, since it did not pass, and its `error` says why). It says nothing
 *   about the tool calls, so it is never counted as failed;
 * - cancelled: it never ran (the run was cancelled, its budget was spent, an ingested test was skipped);
 * - pending: it has not finished yet.
 *
 * So passed + failed + errored + cancelled + pending = total, and the finished iterations are passed + failed +
 * errored. The pass rate is passed / finished: an errored iteration counts against it, a cancelled one does not.
 */
export type Verdict = 'passed' | 'failed' | 'errored' | 'cancelled' | 'pending';

/** What the verdict is read from: an iteration's `status` and `result`, as stored and as the API lists them. */
export interface IterationState {
  status: string;
  result: string | null;
}

/** The status decides first: only a completed iteration was scored, and only its result says passed or failed. */
export function iterationVerdict(iteration: IterationState): Verdict {
  switch (iteration.status) {
    case 'completed':
      return iteration.result === 'passed' ? 'passed' : 'failed';
    case 'failed':
      return 'errored';
    case 'cancelled':
      return 'cancelled';
    default:
      return 'pending';
  }
}

export interface VerdictCounts {
  total: number;
  passed: number;
  failed: number;
  errored: number;
  cancelled: number;
  pending: number;
}

/** How many iterations have each verdict. */
export function countVerdicts(iterations: Iterable<IterationState>): VerdictCounts {
  const counts: VerdictCounts = { total: 0, passed: 0, failed: 0, errored: 0, cancelled: 0, pending: 0 };
  for (const iteration of iterations) {
    counts.total++;
    counts[iterationVerdict(iteration)]++;
  }
  return counts;
}

/** The iterations that finished (passed, failed or errored): what a pass rate divides by. */
export const finishedCount = (counts: Pick<VerdictCounts, 'passed' | 'failed' | 'errored'>): number =>
  counts.passed + counts.failed + counts.errored;

/**
 * A case's verdict, from the verdicts of its iterations in one run: failed when a scored iteration missed (the case
 * did not pass, whatever happened to the others); else errored when one could not be scored; else pending while one
 * has yet to finish; else passed when every one that finished passed; else (none ran) cancelled.
 */
export function caseVerdict(counts: VerdictCounts): Verdict {
  if (counts.failed > 0) return 'failed';
  if (counts.errored > 0) return 'errored';
  if (counts.pending > 0) return 'pending';
  if (counts.passed > 0) return 'passed';
  return 'cancelled';
}
