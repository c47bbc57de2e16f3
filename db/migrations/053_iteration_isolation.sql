-- Issue 16: iterations are independent. By default every iteration of a run gets fresh MCP sessions (a new process
-- for a stdio server, a new session over HTTP); a suite, or an operator for one server, may opt into sessions
-- shared by the run's iterations (a stateless server, where a process per iteration is only cost). A run keeps the
-- suite's choice of when it started; runs from before this migration shared their sessions, and read so.
ALTER TABLE eval_suites
  ADD COLUMN iteration_isolation text NOT NULL DEFAULT 'per-iteration'
    CONSTRAINT eval_suites_iteration_isolation CHECK (iteration_isolation IN ('per-iteration', 'shared'));

ALTER TABLE eval_runs
  ADD COLUMN iteration_isolation text NOT NULL DEFAULT 'shared'
    CONSTRAINT eval_runs_iteration_isolation CHECK (iteration_isolation IN ('per-iteration', 'shared'));

-- null: the suite decides; 'shared': this server's sessions are shared by the iterations of every run.
ALTER TABLE servers
  ADD COLUMN iteration_isolation text
    CONSTRAINT servers_iteration_isolation CHECK (iteration_isolation IN ('per-iteration', 'shared'));
