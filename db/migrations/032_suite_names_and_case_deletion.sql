-- Issue 14: suite names are not unique (the real product creates another suite for a name in use), so the unique
-- (project_id, name) constraint goes; a plain index keeps lookups by project and by name (ingest finds the suite it
-- reports into by name) fast.
ALTER TABLE eval_suites DROP CONSTRAINT eval_suites_project_id_name_key;
CREATE INDEX eval_suites_project_name_idx ON eval_suites (project_id, name);

-- Cases can be deleted through the API. Past iterations point at their case (eval_iterations.case_id, ON DELETE SET
-- NULL) and a running run reads a case's match options and advanced config while it runs, so a deleted case keeps
-- its row (deleted_at) and past runs stay whole. Its identity (title + query, or external id) is free again for a
-- new case: the unique indexes hold only live cases.
ALTER TABLE eval_cases ADD COLUMN deleted_at timestamptz;
DROP INDEX eval_cases_identity_idx;
CREATE UNIQUE INDEX eval_cases_identity_idx ON eval_cases (suite_id, md5(title), md5(query)) WHERE deleted_at IS NULL;
DROP INDEX eval_cases_external_idx;
CREATE UNIQUE INDEX eval_cases_external_idx ON eval_cases (suite_id, external_case_id) WHERE external_case_id IS NOT NULL AND deleted_at IS NULL;

-- A case's scenario: what the case is about, in words (the real product's suite-create tests carry it, and drafted
-- cases have one). Kept and shown, never run.
ALTER TABLE eval_cases ADD COLUMN scenario text;
