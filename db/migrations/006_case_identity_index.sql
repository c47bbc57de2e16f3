-- A case's identity within its suite is title + query, and a query (a prompt) may be 50,000 characters: too long
-- for a btree entry (at most ~2.7 kB), so a long prompt failed to store. The unique index holds their md5 instead,
-- as the Postgres manual advises; equal text still means the same case, and lookups stay on suite_id first.
ALTER TABLE eval_cases DROP CONSTRAINT eval_cases_suite_id_title_query_key;
CREATE UNIQUE INDEX eval_cases_identity_idx ON eval_cases (suite_id, md5(title), md5(query));
