-- Issue 14: suites are managed through the API. A deleted suite keeps its row (deleted_at) so that its runs stay
-- readable; a suite can run on a schedule (a Temporal Schedule per suite, see the schedules module), whose wanted
-- state is kept here so it survives a lost Temporal history and can be shown without asking Temporal.
ALTER TABLE eval_suites
  ADD COLUMN deleted_at timestamptz,
  ADD COLUMN schedule_enabled boolean NOT NULL DEFAULT false,
  ADD COLUMN schedule_interval_minutes integer CHECK (schedule_interval_minutes BETWEEN 1 AND 10080);
