-- Issue 16 (parts 3, 4, 6): several models per case, run budgets, per-run concurrency and organization ceilings.

-- A case may run with several models ({ model, provider? }[]), a suite may give a default list for its cases. NULL:
-- the single model/provider columns (or the suite's default_model) as before.
ALTER TABLE eval_cases ADD COLUMN models jsonb;
ALTER TABLE eval_suites
  ADD COLUMN default_models jsonb,
  -- the budget of a run of this suite that gives none: { maxTokens?, maxIterations? }
  ADD COLUMN default_budget jsonb;

-- The run's budget (after the organization's ceiling) and how many batches it runs at once; NULL: no budget / the
-- worker's EVAL_ITERATION_CONCURRENCY, as runs created before this migration.
ALTER TABLE eval_runs
  ADD COLUMN budget jsonb,
  ADD COLUMN concurrency integer;

-- Each model of a case is planned as its own iterations: the plan's key gains the model's position in the case's list
-- (0 for the only model, and for every iteration planned before this migration).
ALTER TABLE eval_iterations ADD COLUMN model_index integer NOT NULL DEFAULT 0;
DROP INDEX eval_iterations_plan_idx;
CREATE UNIQUE INDEX eval_iterations_plan_idx ON eval_iterations (run_id, case_id, model_index, iteration_number)
  WHERE case_id IS NOT NULL;

-- Ceilings every run of the organization obeys (set with `runway-admin org-limits`); NULL: no ceiling.
ALTER TABLE organizations
  ADD COLUMN max_run_tokens bigint,
  ADD COLUMN max_run_iterations integer,
  ADD COLUMN max_run_concurrency integer;
