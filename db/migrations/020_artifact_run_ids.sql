-- Issue 20: an upload URL may name the run its artifact becomes (its externalRunId). Without one, the run is named
-- after the artifact's content, so uploading the same report twice makes one run, as every other ingest call does.
ALTER TABLE ingest_artifacts ADD COLUMN external_run_id text;
