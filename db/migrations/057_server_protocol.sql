-- Issue 28: the MCP protocol each server last spoke to Runway, as learned when a session opened: its era
-- ('modern': 2026-07-28, server/discover; 'legacy': the initialize handshake) and the negotiated revision. Shown in
-- the project's server list; written only when it changes (never bumps the server's revision or updated_at).
ALTER TABLE servers
  ADD COLUMN protocol_era text CHECK (protocol_era IN ('modern', 'legacy')),
  ADD COLUMN protocol_version text CHECK (length(protocol_version) <= 64),
  ADD COLUMN protocol_seen_at timestamptz;
