-- Eval ingest (issue 6). Forward-only, like 001.
-- created_by_key_id: the run an uploaded artifact becomes is attributed to the key that minted its URL.
-- content_sha256 + reply: a client that retries an upload whose reply it lost (same bytes) gets the same reply
-- instead of a "URL already used" error; different bytes on a used URL are still refused.
ALTER TABLE ingest_artifacts ADD COLUMN created_by_key_id text;
ALTER TABLE ingest_artifacts ADD COLUMN content_sha256 text;
ALTER TABLE ingest_artifacts ADD COLUMN reply jsonb;
