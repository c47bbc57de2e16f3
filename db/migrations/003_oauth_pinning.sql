-- OAuth hardening (issue 13 §1, issue 19 items 4-5). Forward-only, like 001 and 002.

-- The authorization server an operator set for a saved server (admin CLI). When set, it is the only one a grant
-- of this server may be imported for or refreshed at; when not, the server's own metadata decides.
ALTER TABLE servers ADD COLUMN authorization_server_url text;

-- oauth_tokens.authorization_server_url is now the authorization server pinned for the grant (what discovery or
-- the operator named at import, or at the first refresh). Earlier values came from callers unchecked: forgotten,
-- so the next refresh discovers and pins again.
UPDATE oauth_tokens SET authorization_server_url = NULL;
-- Earlier refresh errors may hold a remote server's reply: replaced by a fixed code.
UPDATE oauth_tokens SET last_error = 'refresh_failed' WHERE last_error IS NOT NULL;

-- A refresh claims the grant for a short lease (compare-and-set on generation) and calls the authorization server
-- outside any transaction; the new tokens are stored only while the lease is still its own.
ALTER TABLE oauth_tokens ADD COLUMN refresh_lease_owner text;
ALTER TABLE oauth_tokens ADD COLUMN refresh_lease_until timestamptz;
