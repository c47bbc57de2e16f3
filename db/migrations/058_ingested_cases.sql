-- Issue 29: a case that ingest created holds reported results only. It was stored as a runnable case, without a
-- model and with what the report named as its prompt (a JUnit classname), so every run of a suite that results were
-- reported into (the README's `runway ingest` of the demo suite's own report) was refused: "model is required".
-- Runs now plan only the cases that are not `ingested`; writing a case (an inline test with its title and prompt,
-- POST /eval-suites, a PATCH of the case) makes it runnable.
ALTER TABLE eval_cases ADD COLUMN IF NOT EXISTS ingested boolean NOT NULL DEFAULT false;

-- Cases ingest created before this column existed: the live cases whose results all come from reported runs
-- (source 'sdk': the SDK reporter, the ingest routes, uploaded artifacts) and that hold nothing only an author writes
-- (ingest writes title, query, model, provider, expected tool calls and the negative flag). A case Runway ever ran
-- stays runnable, whoever created it: its suite ran with it. One pass over the iterations, not one per case.
UPDATE eval_cases c SET ingested = true
FROM (SELECT i.case_id FROM eval_iterations i JOIN eval_runs r ON r.id = i.run_id
      WHERE i.case_id IS NOT NULL
      GROUP BY i.case_id HAVING bool_and(r.source = 'sdk')) reported
WHERE c.id = reported.case_id AND c.deleted_at IS NULL AND NOT c.ingested
  AND c.runs = 1 AND c.models IS NULL AND c.expected_output IS NULL AND c.output_check IS NULL AND c.turns IS NULL
  AND c.scenario IS NULL AND c.advanced_config IS NULL AND c.match_options IS NULL AND c.elicitation IS NULL;
