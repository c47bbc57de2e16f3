/**
 * Time budgets of the deterministic output checks (outputCheck.ts). Each check is bounded on its own (a linear-time
 * search of a capped answer); these bound their sum, per iteration and per run in one worker process, so that one
 * tenant's checks cannot hold the worker's event loop from other iterations. A check that finds a budget spent is
 * not run: it fails, saying which budget.
 */
import type { OutputCheckResult } from './outputCheck.js';

/** The most time the output checks of one iteration may take, all its turns together. */
export const ITERATION_CHECK_BUDGET_MS = 1_000;
/** The most time the output checks of one run may take in one worker process. */
export const RUN_CHECK_BUDGET_MS = 30_000;
/** Runs whose spending a worker remembers (the least recently checked are forgotten). */
const REMEMBERED_RUNS = 1_000;

export class CheckBudget {
  spentMs = 0;

  constructor(
    readonly limitMs: number,
    /** whose checks: "this iteration", "this run" */
    readonly scope: string,
  ) {}

  get exhausted(): boolean {
    return this.spentMs >= this.limitMs;
  }
}

/** Each run's budget in this worker process: one map, shared by the run's batches. */
export class RunCheckBudgets {
  private readonly budgets = new Map<string, CheckBudget>();

  constructor(private readonly limitMs = RUN_CHECK_BUDGET_MS) {}

  forRun(runId: string): CheckBudget {
    const budget = this.budgets.get(runId) ?? new CheckBudget(this.limitMs, 'this run');
    // re-inserted: the map's order is the order of use, the oldest first
    this.budgets.delete(runId);
    this.budgets.set(runId, budget);
    if (this.budgets.size > REMEMBERED_RUNS) this.budgets.delete(this.budgets.keys().next().value!);
    return budget;
  }
}

const ms = (n: number) => `${Math.round(n).toLocaleString('en-US')} ms`;

/**
 * Runs a deterministic check unless one of the budgets is spent (then the check fails, saying which), timing it by
 * `now` and charging each budget.
 */
export function budgetedCheck(
  budgets: CheckBudget[],
  shown: Pick<OutputCheckResult, 'mode' | 'expected'>,
  check: () => OutputCheckResult,
  now: () => number = () => performance.now(),
): OutputCheckResult {
  const spent = budgets.find((b) => b.exhausted);
  if (spent)
    return {
      ...shown,
      passed: false,
      reason: `not checked: the output checks of ${spent.scope} took ${ms(spent.spentMs)}, past their budget of ${ms(spent.limitMs)}`,
    };
  const started = now();
  try {
    return check();
  } finally {
    const took = now() - started;
    for (const budget of budgets) budget.spentMs += took;
  }
}
