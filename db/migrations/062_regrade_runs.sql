-- Issue 31: a run can re-grade a finished run's recorded conversations with its suite's current expectations
-- (source 'regrade'). It names the run it re-graded, and the cases it left out (deleted since, or with prompts that
-- changed) with why. It runs in a workflow like the executed sources, so the organization's concurrency cap counts
-- it too: the cap's index covers the three.
ALTER TABLE eval_runs
  ADD COLUMN regrade_of text REFERENCES eval_runs(id) ON DELETE SET NULL,
  ADD COLUMN regrade_skipped jsonb;

DROP INDEX eval_runs_active_idx;
CREATE INDEX eval_runs_active_idx ON eval_runs (organization_id)
  WHERE status = 'running' AND source IN ('api', 'schedule', 'regrade');
