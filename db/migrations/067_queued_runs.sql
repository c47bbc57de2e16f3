-- Issue 33 (queued runs): a run created past its organization's concurrency cap with `queue: true` (or under the
-- organization's queue_runs setting) waits as `queued`, without a workflow, until a slot frees; it is then started
-- (status running) oldest first. The status check gains the value; the partial index serves the queue's reads
-- (its order per organization, a run's position, the organizations with a queue).
ALTER TABLE eval_runs DROP CONSTRAINT IF EXISTS eval_runs_status_check;
ALTER TABLE eval_runs ADD CONSTRAINT eval_runs_status_check
  CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled'));
CREATE INDEX eval_runs_queued_idx ON eval_runs (organization_id, created_at, id) WHERE status = 'queued';

-- Whether the organization's runs beyond the cap queue when a request says nothing (`queue` in POST /eval-runs wins;
-- a suite's scheduled runs follow it): set by `runway-admin org-limits --queue-runs on|off`.
ALTER TABLE organizations ADD COLUMN queue_runs boolean NOT NULL DEFAULT false;
