-- Issue 32: conformance checks of saved servers. A check runs the official MCP conformance suite against one server at
-- one protocol revision, in a workflow of the worker, and keeps its report (domain/mcp/conformance/report.ts) and
-- score once done. One check per server at a time (the partial unique index: racing starts get one); a check counts
-- against the organization's run cap while it is queued or running and before its deadline (the time limit plus a
-- margin, set when it is created): past it, a check whose workflow vanished no longer counts nor blocks its server.
CREATE TABLE conformance_checks (
  id                text PRIMARY KEY,
  organization_id   text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  project_id        text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  server_id         text NOT NULL REFERENCES servers(id) ON DELETE CASCADE,
  spec_version      text NOT NULL CHECK (spec_version IN ('2025-11-25', '2026-07-28')),
  status            text NOT NULL DEFAULT 'queued'
                    CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
  report            jsonb,
  score             integer CHECK (score BETWEEN 0 AND 100),
  error_code        text CHECK (length(error_code) <= 64),
  error_message     text CHECK (length(error_message) <= 2000),
  created_by_key_id text CHECK (length(created_by_key_id) <= 200),
  timeout_ms        integer NOT NULL CHECK (timeout_ms > 0),
  deadline_at       timestamptz NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  started_at        timestamptz,
  finished_at       timestamptz,
  CHECK ((status = 'completed') = (report IS NOT NULL AND score IS NOT NULL)),
  CHECK ((status IN ('failed', 'cancelled')) = (error_code IS NOT NULL))
);

CREATE UNIQUE INDEX conformance_checks_one_open_idx ON conformance_checks (server_id)
  WHERE status IN ('queued', 'running');
CREATE INDEX conformance_checks_history_idx ON conformance_checks (server_id, created_at DESC, id DESC);
CREATE INDEX conformance_checks_active_idx ON conformance_checks (organization_id)
  WHERE status IN ('queued', 'running');
