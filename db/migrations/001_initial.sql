-- Runway schema. Forward-only: never edit a migration that has shipped; add a new file.
-- created_at uses clock_timestamp() so rows written in one transaction keep their insertion order.
-- Secrets live only in *_enc columns (AES-256-GCM envelopes written by db/secretBox.ts).

CREATE TABLE organizations (
  id          text PRIMARY KEY,
  name        text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id          text PRIMARY KEY,
  email       text NOT NULL UNIQUE,
  name        text NOT NULL,
  image_url   text,
  plan        text,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE memberships (
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id         text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role            text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX memberships_user_idx ON memberships (user_id);

-- organization_id is nulled when the organization goes away: the key is then "orphaned" (401 ORPHANED_KEY).
CREATE TABLE api_keys (
  id              text PRIMARY KEY,
  name            text NOT NULL,
  key_hash        text NOT NULL UNIQUE,
  key_prefix      text NOT NULL,
  organization_id text REFERENCES organizations(id) ON DELETE SET NULL,
  user_id         text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  revoked_at      timestamptz,
  last_used_at    timestamptz
);

CREATE TABLE projects (
  id              text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name            text NOT NULL,
  description     text NOT NULL DEFAULT '',
  icon            text NOT NULL DEFAULT '',
  -- 'organization': every member of the organization; 'private': only project_members.
  visibility      text NOT NULL DEFAULT 'organization' CHECK (visibility IN ('organization', 'private')),
  is_default      boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX projects_org_idx ON projects (organization_id, created_at);
CREATE UNIQUE INDEX projects_one_default_idx ON projects (organization_id) WHERE is_default;

CREATE TABLE project_members (
  project_id  text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  user_id     text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role        text NOT NULL CHECK (role IN ('owner', 'admin', 'editor', 'viewer')),
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (project_id, user_id)
);

CREATE TABLE servers (
  id                text PRIMARY KEY,
  project_id        text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name              text NOT NULL,
  enabled           boolean NOT NULL DEFAULT true,
  transport_type    text NOT NULL CHECK (transport_type IN ('stdio', 'http', 'sse')),
  url               text,
  command           text,
  args              jsonb NOT NULL DEFAULT '[]',
  env_enc           text,
  headers_enc       text,
  use_oauth         boolean NOT NULL DEFAULT false,
  oauth_scopes      text[] NOT NULL DEFAULT '{}',
  oauth_client_id   text,
  client_secret_enc text,
  -- { connectMs?, initializeMs?, requestMs?, maxTotalMs? }: per-server overrides of the operation timeouts.
  timeouts          jsonb NOT NULL DEFAULT '{}',
  -- bumped on every edit so the connection pool never reuses a client built from an old configuration.
  revision          integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  CHECK ((transport_type = 'stdio') = (command IS NOT NULL)),
  CHECK ((transport_type = 'stdio') OR url IS NOT NULL)
);
CREATE INDEX servers_project_idx ON servers (project_id, created_at);

CREATE TABLE oauth_tokens (
  server_id                text PRIMARY KEY REFERENCES servers(id) ON DELETE CASCADE,
  server_url               text NOT NULL,
  access_token_enc         text NOT NULL,
  refresh_token_enc        text,
  token_type               text NOT NULL DEFAULT 'Bearer',
  scope                    text,
  expires_at               timestamptz,
  client_id                text,
  client_secret_enc        text,
  authorization_server_url text,
  resource_url             text,
  -- bumped on import and on each refresh; part of the pool key, and the compare-and-swap guard for refresh.
  generation               integer NOT NULL DEFAULT 1,
  last_refresh_at          timestamptz,
  last_error               text,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at               timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE provider_keys (
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  provider        text NOT NULL,
  api_key_enc     text NOT NULL,
  base_url        text,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, provider)
);

CREATE TABLE hosts (
  id          text PRIMARY KEY,
  project_id  text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name        text NOT NULL,
  template    text,
  config      jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX hosts_project_idx ON hosts (project_id, created_at);

CREATE TABLE chat_sessions (
  id               text PRIMARY KEY,
  project_id       text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  user_id          text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  title            text,
  status           text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
  visibility       text NOT NULL DEFAULT 'private' CHECK (visibility IN ('private', 'project')),
  is_pinned        boolean NOT NULL DEFAULT false,
  is_unread        boolean NOT NULL DEFAULT false,
  last_activity_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX chat_sessions_activity_idx ON chat_sessions (project_id, status, last_activity_at DESC, id DESC);

CREATE TABLE chatboxes (
  id                    text PRIMARY KEY,
  project_id            text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name                  text NOT NULL,
  description           text NOT NULL DEFAULT '',
  host_id               text REFERENCES hosts(id) ON DELETE SET NULL,
  host_style            text NOT NULL DEFAULT 'mcpjam',
  mode                  text NOT NULL DEFAULT 'project_members'
                        CHECK (mode IN ('project_members', 'invited_only', 'anyone_with_link')),
  model_id              text NOT NULL,
  system_prompt         text NOT NULL DEFAULT '',
  temperature           double precision NOT NULL DEFAULT 0.7,
  require_tool_approval boolean NOT NULL DEFAULT false,
  server_ids            text[] NOT NULL DEFAULT '{}',
  link_path             text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX chatboxes_project_idx ON chatboxes (project_id, created_at);

CREATE TABLE eval_suites (
  id             text PRIMARY KEY,
  project_id     text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name           text NOT NULL,
  description    text NOT NULL DEFAULT '',
  server_ids     text[] NOT NULL DEFAULT '{}',
  default_model  text,
  pass_criteria  jsonb NOT NULL DEFAULT '{"minimumPassRate": 100}',
  source         text NOT NULL DEFAULT 'api',
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, name)
);

CREATE TABLE eval_cases (
  id                  text PRIMARY KEY,
  suite_id            text NOT NULL REFERENCES eval_suites(id) ON DELETE CASCADE,
  title               text NOT NULL,
  query               text NOT NULL DEFAULT '',
  runs                integer NOT NULL DEFAULT 1,
  model               text,
  provider            text,
  expected_tool_calls jsonb NOT NULL DEFAULT '[]',
  is_negative_test    boolean NOT NULL DEFAULT false,
  expected_output     text,
  advanced_config     jsonb,
  match_options       jsonb,
  external_case_id    text,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  -- case identity within a suite: title + query
  UNIQUE (suite_id, title, query)
);
CREATE UNIQUE INDEX eval_cases_external_idx ON eval_cases (suite_id, external_case_id) WHERE external_case_id IS NOT NULL;

CREATE TABLE eval_runs (
  id                  text PRIMARY KEY,
  suite_id            text NOT NULL REFERENCES eval_suites(id) ON DELETE CASCADE,
  project_id          text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  organization_id     text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  run_number          integer NOT NULL,
  status              text NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'cancelled')),
  result              text CHECK (result IN ('passed', 'failed', 'pending')),
  summary             jsonb,
  source              text NOT NULL DEFAULT 'api',
  notes               text,
  pass_criteria       jsonb NOT NULL DEFAULT '{"minimumPassRate": 100}',
  server_ids          text[] NOT NULL DEFAULT '{}',
  iteration_override  integer,
  -- per-run provider keys, encrypted; cleared when the run ends
  model_keys_enc      text,
  external_run_id     text,
  framework           text,
  ci                  jsonb,
  tags                jsonb,
  expected_iterations integer,
  error               text,
  created_by_key_id   text,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  started_at          timestamptz,
  completed_at        timestamptz,
  UNIQUE (suite_id, run_number)
);
CREATE UNIQUE INDEX eval_runs_external_idx ON eval_runs (project_id, external_run_id) WHERE external_run_id IS NOT NULL;
CREATE INDEX eval_runs_suite_idx ON eval_runs (suite_id, created_at DESC);
CREATE INDEX eval_runs_active_idx ON eval_runs (organization_id) WHERE status = 'running' AND source = 'api';

CREATE TABLE eval_iterations (
  id                    text PRIMARY KEY,
  run_id                text NOT NULL REFERENCES eval_runs(id) ON DELETE CASCADE,
  case_id               text REFERENCES eval_cases(id) ON DELETE SET NULL,
  title                 text NOT NULL,
  query                 text NOT NULL DEFAULT '',
  iteration_number      integer NOT NULL,
  status                text NOT NULL CHECK (status IN ('pending', 'running', 'completed', 'failed', 'cancelled')),
  result                text CHECK (result IN ('passed', 'failed')),
  model                 text,
  provider              text,
  started_at            timestamptz,
  duration_ms           integer,
  input_tokens          integer NOT NULL DEFAULT 0,
  output_tokens         integer NOT NULL DEFAULT 0,
  total_tokens          integer NOT NULL DEFAULT 0,
  expected_tool_calls   jsonb NOT NULL DEFAULT '[]',
  actual_tool_calls     jsonb NOT NULL DEFAULT '[]',
  error                 text,
  error_details         jsonb,
  metadata              jsonb,
  is_negative_test      boolean NOT NULL DEFAULT false,
  external_iteration_id text,
  seq                   bigserial,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at            timestamptz NOT NULL DEFAULT now()
);
-- idempotency keys: an executed iteration is (run, case, iteration number); an ingested one its external id
CREATE UNIQUE INDEX eval_iterations_plan_idx ON eval_iterations (run_id, case_id, iteration_number) WHERE case_id IS NOT NULL;
CREATE UNIQUE INDEX eval_iterations_external_idx ON eval_iterations (run_id, external_iteration_id) WHERE external_iteration_id IS NOT NULL;
CREATE INDEX eval_iterations_page_idx ON eval_iterations (run_id, seq);

CREATE TABLE eval_traces (
  iteration_id text PRIMARY KEY REFERENCES eval_iterations(id) ON DELETE CASCADE,
  trace        jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE TABLE ingest_artifacts (
  id              text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  project_id      text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  token_hash      text NOT NULL UNIQUE,
  format          text CHECK (format IN ('junit-xml', 'jest-json', 'vitest-json')),
  suite_name      text,
  expires_at      timestamptz NOT NULL,
  used_at         timestamptz,
  content_type    text,
  content         bytea,
  run_id          text REFERENCES eval_runs(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- token bucket per API key; shared by every API process. UNLOGGED: written on every request, so it skips the
-- WAL flush at commit; after a database crash the buckets start full again, which is harmless.
CREATE UNLOGGED TABLE rate_limit_buckets (
  key_id      text PRIMARY KEY,
  tokens      double precision NOT NULL,
  -- whether the request that last touched the bucket was let through
  last_allowed boolean NOT NULL DEFAULT true,
  updated_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
