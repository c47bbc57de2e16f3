-- Issue 14: suites run on a schedule. Scheduled runs are executed here like API runs (source 'schedule'), so the
-- organization's concurrency cap counts them too: its index covers both executed sources (ingested runs, source
-- 'sdk', stay outside the cap as before).
DROP INDEX eval_runs_active_idx;
CREATE INDEX eval_runs_active_idx ON eval_runs (organization_id) WHERE status = 'running' AND source IN ('api', 'schedule');

-- A due run that could not start (the cap was full, a model has no key, the suite has no servers...) is skipped, not
-- queued: the last skip is kept on the suite, where its detail shows it (`schedule.lastSkipped`).
ALTER TABLE eval_suites
  ADD COLUMN schedule_last_skipped_at timestamptz,
  ADD COLUMN schedule_last_skip_reason text,
  ADD COLUMN schedule_last_skip_message text;
