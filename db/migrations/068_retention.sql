-- Issue 33, retention: what expires and when, per organization (domain/useCases/retention/applyRetention.ts).
-- A policy row overrides the deployment's defaults (RETENTION_TRACE_DAYS, RETENTION_RUN_DAYS) field by field: a
-- null day count with its `_forever` flag unset means "the deployment's default"; the flag means "keep for ever".
CREATE TABLE retention_policies (
  organization_id text PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
  trace_days      integer CHECK (trace_days BETWEEN 1 AND 36500),
  traces_forever  boolean NOT NULL DEFAULT false,
  run_days        integer CHECK (run_days BETWEEN 1 AND 36500),
  runs_forever    boolean NOT NULL DEFAULT false,
  updated_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  CHECK (NOT (traces_forever AND trace_days IS NOT NULL)),
  CHECK (NOT (runs_forever AND run_days IS NOT NULL))
);

-- When retention deleted an iteration's trace (the trace route then says "trace expired on ..."), and when it first
-- deleted one of a run's traces (shown on the run).
ALTER TABLE eval_iterations ADD COLUMN trace_expired_at timestamptz;
ALTER TABLE eval_runs ADD COLUMN traces_expired_at timestamptz;

-- Retention's batches find the oldest traces and blobs by these, never by a scan of the whole table.
CREATE INDEX eval_traces_created_idx ON eval_traces (created_at);
CREATE INDEX ingest_artifacts_blob_idx ON ingest_artifacts (created_at) WHERE content IS NOT NULL;
CREATE INDEX ingest_artifacts_unused_idx ON ingest_artifacts (expires_at) WHERE used_at IS NULL;
CREATE INDEX eval_runs_ended_idx ON eval_runs (COALESCE(completed_at, created_at)) WHERE status IN ('completed', 'failed', 'cancelled');
