// Pure and deterministic (workflow code): what a run may still start under its budget (issue 16).

export interface Budget {
  maxTokens?: number;
  maxIterations?: number;
}

/**
 * Keeps a run's budget as its batches come back: iterations handed out, tokens the finished ones spent. The workflow
 * asks `allowance()` before each batch and starts no more than it says; 0 means the budget is spent. Tokens are known
 * only once a batch returns, so a token budget hands out small batches (one per lane until the first batch has
 * been measured, then about what the tokens left pay for, shared between the lanes): what is in flight when the
 * budget runs out finishes, and may spend a little past it.
 */
export class BudgetTracker {
  readonly #budget: Budget;
  readonly #lanes: number;
  #handedOut = 0;
  #measured = 0;
  #tokens = 0;

  constructor(budget: Budget, lanes: number) {
    this.#budget = budget;
    this.#lanes = Math.max(1, lanes);
  }

  /** The most iterations the next batch may hold; 0 once the budget is spent. */
  allowance(): number {
    const { maxTokens, maxIterations } = this.#budget;
    let allowed = Number.POSITIVE_INFINITY;
    if (maxIterations !== undefined) allowed = Math.max(0, maxIterations - this.#handedOut);
    if (maxTokens !== undefined) {
      const left = maxTokens - this.#tokens;
      if (left <= 0) return 0;
      const perIteration = this.#measured === 0 ? undefined : this.#tokens / this.#measured;
      const affordable =
        perIteration === undefined || perIteration === 0
          ? 1
          : Math.max(1, Math.floor(left / perIteration / this.#lanes));
      allowed = Math.min(allowed, affordable);
    }
    return allowed;
  }

  /** A batch of `count` iterations was handed out. */
  handedOut(count: number): void {
    this.#handedOut += count;
  }

  /** A batch came back: `iterations` finished in it, spending `tokens`. */
  spent(iterations: number, tokens: number): void {
    this.#measured += iterations;
    this.#tokens += tokens;
  }

  get tokens(): number {
    return this.#tokens;
  }
}
