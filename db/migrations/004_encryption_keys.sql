-- Issue 13: which keys the database's secrets are sealed with, and host header values stored apart, encrypted.
-- Forward-only, like the others.

-- A key is recorded by id and fingerprint (HMACs of fixed labels under the key; never the key) when a process that
-- seals with it first starts, and retired once `secrets rekey` has re-sealed every secret with a newer key. Every
-- process refuses to start unless it holds every key not retired (db/keyring.ts).
CREATE TABLE encryption_keys (
  key_id      text PRIMARY KEY,
  fingerprint text NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  retired_at  timestamptz
);

-- connectionDefaults.headers of a host config, sealed as one JSON object; the config keeps everything else.
-- Plain SQL cannot encrypt, so rows saved before this migration (headers inside config) are sealed by the first
-- process to start (db/hosts.ts, sealLegacyHostHeaders) and by `secrets rekey`.
ALTER TABLE hosts ADD COLUMN headers_enc text;
