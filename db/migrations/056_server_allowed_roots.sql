-- Issue 27 §2: the roots a tenant's host may declare to a stdio server, as an operator allows them (admin CLI
-- `server create|update --allowed-root`). file:// URIs; a host root must lie inside one of them, else a run with
-- that host is refused and the root is not declared. Empty (the default): a host declares no root to the server.
ALTER TABLE servers ADD COLUMN allowed_roots text[] NOT NULL DEFAULT '{}';
-- A remote (http, sse) server cannot read this machine's disk through a root: there a root is only a name.
ALTER TABLE servers ADD CONSTRAINT servers_allowed_roots_stdio CHECK (transport_type = 'stdio' OR allowed_roots = '{}');
