-- Issue 15: claims are fenced by the batch attempt that holds them. A batch's activity stamps its unfinished
-- iterations with its own identity (claim_owner: the workflow run and activity) and attempt number when an attempt
-- starts; only the attempt stamped may mark an iteration running or store its outcome. A stale attempt (a paused
-- worker that wakes up after its batch was retried) can neither claim nor complete an iteration.
ALTER TABLE eval_iterations
  ADD COLUMN claim_owner text,
  ADD COLUMN claim_attempt integer;
