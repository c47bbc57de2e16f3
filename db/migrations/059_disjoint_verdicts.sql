-- Issue 29 item 6: passed, failed and errored are disjoint (domain/evals/verdicts.ts): failed is scored and did not
-- meet the expectations, errored could not be scored (status failed). What the earlier reading stored is brought to
-- it, so an old run reads as a new one: its summary agrees with its progress and its iterations.

-- Ingest stored a passed result that carried an error as `failed` (errored); a passed result is passed.
UPDATE eval_iterations SET status = 'completed' WHERE status = 'failed' AND result = 'passed';

-- Finished runs' summaries counted the errored iterations among `failed` (the oldest had no `errored` at all).
UPDATE eval_runs r
SET summary = r.summary || jsonb_build_object(
  'failed', (r.summary->>'total')::int - (r.summary->>'passed')::int - c.errored,
  'errored', c.errored)
FROM (
  SELECT run_id, count(*) FILTER (WHERE status = 'failed')::int AS errored
  FROM eval_iterations GROUP BY run_id
) c
WHERE c.run_id = r.id AND r.summary IS NOT NULL AND r.summary ? 'total' AND r.summary ? 'passed';
