-- Issue 32: the tool surfaces a server showed (its tools' names, descriptions, schemas and annotations, normalized
-- and hashed: domain/mcp/surface.ts), each kept once per server with when it was first and last seen and how many
-- exports saw it; and which surfaces each eval run's listings saw (a run that saw two for one server saw it change).
CREATE TABLE tool_surfaces (
  server_id     text NOT NULL REFERENCES servers(id) ON DELETE CASCADE,
  hash          text NOT NULL,
  surface       jsonb NOT NULL,
  tool_count    integer NOT NULL,
  truncated     boolean NOT NULL DEFAULT false,
  first_seen_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at  timestamptz NOT NULL DEFAULT now(),
  export_count  integer NOT NULL DEFAULT 0,
  PRIMARY KEY (server_id, hash)
);
CREATE INDEX tool_surfaces_last_seen_idx ON tool_surfaces (server_id, last_seen_at DESC, hash);

CREATE TABLE run_surfaces (
  run_id        text NOT NULL REFERENCES eval_runs(id) ON DELETE CASCADE,
  server_id     text NOT NULL,
  hash          text NOT NULL,
  listings      integer NOT NULL DEFAULT 1,
  first_seen_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, server_id, hash),
  FOREIGN KEY (server_id, hash) REFERENCES tool_surfaces (server_id, hash) ON DELETE CASCADE
);
CREATE INDEX run_surfaces_surface_idx ON run_surfaces (server_id, hash);
