// Pure and deterministic (workflow code): what a run may still start under its budget (issue 16; money: issue 31).

export interface Budget {
  maxTokens?: number;
  maxIterations?: number;
  /** USD, at the organization's prices (every model of such a run has one: startEvalRun refuses it otherwise) */
  maxCostUsd?: number;
}

/**
 * Keeps a run's budget as its batches come back: iterations handed out, tokens and USD the finished ones spent. The
 * workflow asks `allowance()` before each batch and starts no more than it says; 0 means the budget is spent. Tokens
 * and cost are known only once a batch returns, so a token or money budget hands out small batches (one per lane
 * until the first batch has been measured, then about what is left pays for, shared between the lanes): what is in
 * flight when the budget runs out finishes, and may spend a little past it.
 */
export class BudgetTracker {
  readonly #budget: Budget;
  readonly #lanes: number;
  #handedOut = 0;
  #measured = 0;
  #tokens = 0;
  #costUsd = 0;

  constructor(budget: Budget, lanes: number) {
    this.#budget = budget;
    this.#lanes = Math.max(1, lanes);
  }

  /** The most iterations the next batch may hold; 0 once the budget is spent. */
  allowance(): number {
    const { maxTokens, maxIterations, maxCostUsd } = this.#budget;
    let allowed = Number.POSITIVE_INFINITY;
    if (maxIterations !== undefined) allowed = Math.max(0, maxIterations - this.#handedOut);
    if (maxTokens !== undefined) allowed = Math.min(allowed, this.#affordable(maxTokens, this.#tokens));
    if (maxCostUsd !== undefined) allowed = Math.min(allowed, this.#affordable(maxCostUsd, this.#costUsd));
    return allowed;
  }

  /** Iterations what is left of `max` pays for (`spent` so far), at what the measured ones spent each. */
  #affordable(max: number, spent: number): number {
    const left = max - spent;
    if (left <= 0) return 0;
    const perIteration = this.#measured === 0 ? undefined : spent / this.#measured;
    return perIteration === undefined || perIteration === 0
      ? 1
      : Math.max(1, Math.floor(left / perIteration / this.#lanes));
  }

  /** A batch of `count` iterations was handed out. */
  handedOut(count: number): void {
    this.#handedOut += count;
  }

  /** A batch came back: `iterations` finished in it, spending `tokens` and `costUsd`. */
  spent(iterations: number, tokens: number, costUsd = 0): void {
    this.#measured += iterations;
    this.#tokens += tokens;
    this.#costUsd += costUsd;
  }

  get tokens(): number {
    return this.#tokens;
  }

  get costUsd(): number {
    return this.#costUsd;
  }
}
