-- Issue 19 item 7: machine-to-machine servers. Forward-only, like the others.

-- How a saved server's OAuth tokens come: 'caller' (a caller completes the browser flow and imports them) or
-- 'client_credentials' (Runway obtains and renews them itself at the authorization server, RFC 6749 §4.4, with the
-- operator's client: a client secret, or a private key for private_key_jwt, RFC 7523).
ALTER TABLE servers ADD COLUMN oauth_grant text NOT NULL DEFAULT 'caller' CHECK (oauth_grant IN ('caller', 'client_credentials'));
-- The client's private key (PKCS#8 PEM, sealed like every *_enc column) and the JWS algorithm it signs with.
ALTER TABLE servers ADD COLUMN oauth_private_key_enc text;
ALTER TABLE servers ADD COLUMN oauth_signing_alg text;
ALTER TABLE servers ADD CONSTRAINT servers_private_key_alg CHECK ((oauth_private_key_enc IS NULL) = (oauth_signing_alg IS NULL));
-- A machine grant needs an HTTP server, a client id, and a way for that client to authenticate.
ALTER TABLE servers ADD CONSTRAINT servers_client_credentials CHECK (
  oauth_grant = 'caller'
  OR (use_oauth AND transport_type <> 'stdio' AND oauth_client_id IS NOT NULL
      AND (client_secret_enc IS NOT NULL OR oauth_private_key_enc IS NOT NULL))
);

-- Where a grant's tokens came from. A machine grant's row exists from its first attempt on (its refresh lease is
-- how processes agree on who asks the authorization server), with no access token until one is obtained.
ALTER TABLE oauth_tokens ADD COLUMN source text NOT NULL DEFAULT 'caller' CHECK (source IN ('caller', 'client_credentials'));
ALTER TABLE oauth_tokens ALTER COLUMN access_token_enc DROP NOT NULL;
ALTER TABLE oauth_tokens ADD CONSTRAINT oauth_tokens_access_token CHECK (source = 'client_credentials' OR access_token_enc IS NOT NULL);
