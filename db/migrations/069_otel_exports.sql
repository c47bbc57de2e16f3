-- Issue 33, OpenTelemetry export: where an organization's eval traces go, besides the deployment's own OTLP endpoint
-- (OTEL_EXPORTER_OTLP_*). Set by the operator CLI (`npm run admin -- otel set`). Both sealed with the secret box: an
-- endpoint may carry a token in its query, and the headers usually carry the backend's API key.
CREATE TABLE organization_otel_exports (
  organization_id text PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
  -- the OTLP/HTTP traces URL (…/v1/traces), sealed
  endpoint_enc text NOT NULL,
  -- the headers sent with every export, as a sealed JSON object
  headers_enc text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
