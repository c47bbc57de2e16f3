-- Issue 33 item 3: Idempotency-Key on the creating POSTs (api/idempotency.ts). A key is scoped by the caller (the
-- organization and the API key) and the route (method and path template): the first request claims it with an INSERT
-- on this primary key before doing any work, and a retry with the same key and the same request (fingerprint: sha256
-- of the canonical path parameters, query and body) gets the first reply back (status and JSON text, as sent). A claim
-- still under way has a lease (locked_until), renewed while its request runs: a claim left by a crashed process is
-- taken over once the lease has passed. A row lives 24 hours (expires_at); expired rows are taken over in place or
-- deleted in batches (db/idempotencyKeys.ts purgeExpiredIdempotencyKeys).
CREATE TABLE idempotency_keys (
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  api_key_id      text NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
  route           text NOT NULL CHECK (length(route) <= 300),
  idempotency_key text NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 255),
  fingerprint     text NOT NULL CHECK (length(fingerprint) = 64),
  -- the claim's owner: only it completes or releases the row (a request whose lease was taken over cannot)
  claim_token     text NOT NULL CHECK (length(claim_token) <= 64),
  locked_until    timestamptz,
  reply_status    integer CHECK (reply_status BETWEEN 100 AND 599),
  -- the reply's JSON text as it was sent (NULL when it was larger than the bound kept: reply_status says what it was)
  reply_body      text CHECK (octet_length(reply_body) <= 2097152),
  -- the reply's headers that a replay repeats (Location, Retry-After), e.g. {"Location": "/api/v1/..."}
  reply_headers   jsonb CHECK (octet_length(reply_headers::text) <= 8192),
  created_at      timestamptz NOT NULL DEFAULT now(),
  completed_at    timestamptz,
  expires_at      timestamptz NOT NULL,
  PRIMARY KEY (organization_id, api_key_id, route, idempotency_key),
  -- under way (a lease, no reply) or done (a reply status, no lease)
  CHECK ((locked_until IS NULL) = (reply_status IS NOT NULL)),
  CHECK (reply_body IS NULL OR reply_status IS NOT NULL)
);

CREATE INDEX idempotency_keys_expiry_idx ON idempotency_keys (expires_at);
