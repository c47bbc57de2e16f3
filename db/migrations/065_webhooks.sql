-- Issue 33: signed webhooks. An endpoint belongs to an organization (project_id NULL: every project's events) or to
-- one project, and takes the events it names; its signing secret (Standard Webhooks, whsec_...) is sealed with the
-- keyring like every stored secret. A delivery is one message (webhook-id, stable across its retries) to one
-- endpoint, with the payload as it was built when the event happened; a redelivery is a delivery of its own with the
-- same message. The unique index lets a duplicate notice of one event create nothing twice. Every attempt (Temporal's
-- retries of the delivery activity) is kept with what the endpoint answered, bounded.
CREATE TABLE webhook_endpoints (
  id                text PRIMARY KEY,
  organization_id   text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  project_id        text REFERENCES projects(id) ON DELETE CASCADE,
  url               text NOT NULL CHECK (length(url) <= 2048),
  description       text NOT NULL DEFAULT '' CHECK (length(description) <= 500),
  events            text[] NOT NULL CHECK (cardinality(events) BETWEEN 1 AND 16),
  secret_enc        text NOT NULL,
  enabled           boolean NOT NULL DEFAULT true,
  created_by_key_id text CHECK (length(created_by_key_id) <= 200),
  created_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at        timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE INDEX webhook_endpoints_list_idx ON webhook_endpoints (organization_id, created_at DESC, id DESC);
CREATE INDEX webhook_endpoints_project_idx ON webhook_endpoints (project_id) WHERE project_id IS NOT NULL;

CREATE TABLE webhook_deliveries (
  id            text PRIMARY KEY,
  endpoint_id   text NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  message_id    text NOT NULL CHECK (length(message_id) <= 200),
  event_type    text NOT NULL CHECK (length(event_type) <= 64),
  payload       jsonb NOT NULL,
  redelivery_of text REFERENCES webhook_deliveries(id) ON DELETE SET NULL,
  status        text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  created_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
  finished_at   timestamptz,
  CHECK ((status = 'pending') = (finished_at IS NULL))
);

-- One first delivery of a message per endpoint (redeliveries are not bound by it).
CREATE UNIQUE INDEX webhook_deliveries_once_idx ON webhook_deliveries (endpoint_id, message_id)
  WHERE redelivery_of IS NULL;
CREATE INDEX webhook_deliveries_list_idx ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);

CREATE TABLE webhook_attempts (
  delivery_id      text NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  attempt          integer NOT NULL CHECK (attempt > 0),
  attempted_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
  succeeded        boolean NOT NULL,
  status_code      integer CHECK (status_code BETWEEN 100 AND 599),
  duration_ms      integer NOT NULL CHECK (duration_ms >= 0),
  response_excerpt text CHECK (length(response_excerpt) <= 1024),
  error            text CHECK (length(error) <= 1000),
  PRIMARY KEY (delivery_id, attempt)
);
