import { OperationFailure } from '../failures.js';
import type { RunBudget } from './run.js';
import type { ModelChoice } from './suite.js';

/*
 * Pure rules (no I/O) of issue 16's run settings: which models a case runs with, the run's budget and its
 * concurrency, and the organization's ceilings over both. POST /eval-runs and a suite's schedule (startEvalRun.ts)
 * resolve them once, when the run is created; the planner (plan.ts) expands each case over its models.
 */

/** Ceilings every run of an organization obeys (`runway-admin org-limits`); null: none. */
export interface OrganizationLimits {
  maxTokens: number | null;
  maxIterations: number | null;
  maxConcurrency: number | null;
  /**
   * Whether a run past the organization's concurrency cap is queued (issue 33) when its request says nothing
   * (`queue` in POST /eval-runs wins); a suite's scheduled runs follow it. Absent: false.
   */
  queueRuns?: boolean;
}

/** The single model/provider columns a case (or suite) keeps for its first model: the product's `model` stays valid. */
export function firstModel(
  models: ModelChoice[] | null | undefined,
): { model: string; provider: string | null } | null {
  const first = models?.[0];
  return first ? { model: first.model, provider: first.provider ?? null } : null;
}

/**
 * The models a case runs with, in order: its own `models`, else its single `model` (+ provider), else the suite's
 * default list, else the suite's default model (with the case's provider, as before models existed). One entry
 * with a null model when nothing names one: the run refuses it when it is created (validateRunModels).
 */
export function caseModels(
  c: { model: string | null; provider: string | null; models?: ModelChoice[] | null },
  suite: { defaultModel: string | null; defaultModels?: ModelChoice[] | null } | undefined,
): { model: string | null; provider: string | null }[] {
  if (c.models && c.models.length > 0) return c.models.map((m) => ({ model: m.model, provider: m.provider ?? null }));
  if (c.model !== null) return [{ model: c.model, provider: c.provider }];
  if (suite?.defaultModels && suite.defaultModels.length > 0)
    return suite.defaultModels.map((m) => ({ model: m.model, provider: m.provider ?? c.provider ?? null }));
  return [{ model: suite?.defaultModel ?? null, provider: c.provider }];
}

/** The refusal of a request above the organization's ceiling: 400 VALIDATION_ERROR, reason ABOVE_ORGANIZATION_LIMIT. */
export function aboveOrganizationLimit(field: string, requested: number, limit: number): OperationFailure {
  return new OperationFailure(
    'VALIDATION_ERROR',
    `${field} ${requested} is above this organization's limit of ${limit}: ask less, or ask an operator to raise the limit (runway-admin org-limits)`,
    { reason: 'ABOVE_ORGANIZATION_LIMIT', field, requested, limit },
  );
}

/**
 * The run's budget, decided when it is created:
 * - a budget the request gives is refused (400 ABOVE_ORGANIZATION_LIMIT) where it is above the organization's ceiling;
 * - else the suite's default budget applies, clamped to the ceiling (a default the caller did not write is not
 *   refused: the ceiling may have been lowered since the suite was saved);
 * - a bound neither gives is the organization's ceiling, when it has one.
 * null: nothing bounds the run.
 */
export function resolveBudget(
  requested: RunBudget | undefined,
  suiteDefault: RunBudget | null | undefined,
  org: OrganizationLimits,
): RunBudget | null {
  if (requested) {
    if (requested.maxTokens !== undefined && org.maxTokens !== null && requested.maxTokens > org.maxTokens)
      throw aboveOrganizationLimit('budget.maxTokens', requested.maxTokens, org.maxTokens);
    if (
      requested.maxIterations !== undefined &&
      org.maxIterations !== null &&
      requested.maxIterations > org.maxIterations
    )
      throw aboveOrganizationLimit('budget.maxIterations', requested.maxIterations, org.maxIterations);
  }
  const base = requested ?? suiteDefault ?? {};
  const clamp = (value: number | undefined, ceiling: number | null) =>
    value === undefined ? (ceiling ?? undefined) : ceiling === null ? value : Math.min(value, ceiling);
  const maxTokens = clamp(base.maxTokens, org.maxTokens);
  const maxIterations = clamp(base.maxIterations, org.maxIterations);
  // No organization ceiling bounds money (yet): a run's or its suite's maxCostUsd is kept as given.
  const { maxCostUsd } = base;
  if (maxTokens === undefined && maxIterations === undefined && maxCostUsd === undefined) return null;
  return {
    ...(maxTokens !== undefined && { maxTokens }),
    ...(maxIterations !== undefined && { maxIterations }),
    ...(maxCostUsd !== undefined && { maxCostUsd }),
  };
}

/** A requested concurrency above the organization's ceiling is refused; none requested: null (the default applies). */
export function resolveConcurrency(requested: number | undefined, org: OrganizationLimits): number | null {
  if (requested === undefined) return null;
  if (org.maxConcurrency !== null && requested > org.maxConcurrency)
    throw aboveOrganizationLimit('concurrency', requested, org.maxConcurrency);
  return requested;
}

/** The batches a run keeps in flight: its own concurrency, else the worker's default, never above the ceiling. */
export function runConcurrency(
  run: { concurrency: number | null },
  defaultConcurrency: number,
  org: OrganizationLimits,
) {
  const wanted = run.concurrency ?? defaultConcurrency;
  return Math.max(1, org.maxConcurrency === null ? wanted : Math.min(wanted, org.maxConcurrency));
}
