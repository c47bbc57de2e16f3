import type { Db, Sql } from './connection.js';
import type { SecretBox } from './secretBox.js';

export interface ImportedTokens {
  serverId: string;
  serverUrl: string;
  accessToken: string;
  refreshToken: string | null;
  tokenType: string;
  scope: string | null;
  expiresAt: Date | null;
  clientId: string | null;
  clientSecret: string | null;
  authorizationServerUrl: string | null;
  resourceUrl: string | null;
}

/** A server's OAuth grant with its secrets decrypted: only activities/mcp ever sees this. */
export interface StoredTokens extends ImportedTokens {
  /** bumped on import and on every refresh: the pool key, and the guard that makes refresh happen once */
  generation: number;
  lastRefreshAt: Date | null;
  lastError: string | null;
}

/** What check-oauth may show: no secret is read or decrypted. */
export interface TokenHealth {
  expiresAt: Date | null;
  hasRefreshToken: boolean;
  hasClientId: boolean;
  lastRefreshAt: Date | null;
  lastError: string | null;
}

export interface RefreshedTokens {
  accessToken: string;
  /** null keeps the current refresh token (the authorization server did not rotate it) */
  refreshToken: string | null;
  tokenType: string;
  scope: string | null;
  expiresAt: Date | null;
}

interface TokenRow {
  server_id: string; server_url: string; access_token_enc: string; refresh_token_enc: string | null; token_type: string;
  scope: string | null; expires_at: Date | null; client_id: string | null; client_secret_enc: string | null;
  authorization_server_url: string | null; resource_url: string | null; generation: number;
  last_refresh_at: Date | null; last_error: string | null;
}

const decryptOptional = (box: SecretBox, value: string | null) => (value ? box.decrypt(value) : null);

/** Import replaces the whole grant (a fresh one from the caller) and starts a new generation. */
export async function saveImportedTokens(sql: Db, box: SecretBox, input: ImportedTokens): Promise<{ generation: number }> {
  const [row] = await sql<{ generation: number }[]>`
    INSERT INTO oauth_tokens (server_id, server_url, access_token_enc, refresh_token_enc, token_type, scope, expires_at,
                              client_id, client_secret_enc, authorization_server_url, resource_url)
    VALUES (${input.serverId}, ${input.serverUrl}, ${box.encrypt(input.accessToken)},
            ${input.refreshToken ? box.encrypt(input.refreshToken) : null}, ${input.tokenType}, ${input.scope},
            ${input.expiresAt}, ${input.clientId}, ${input.clientSecret ? box.encrypt(input.clientSecret) : null},
            ${input.authorizationServerUrl}, ${input.resourceUrl})
    ON CONFLICT (server_id) DO UPDATE SET
      server_url = EXCLUDED.server_url, access_token_enc = EXCLUDED.access_token_enc,
      refresh_token_enc = EXCLUDED.refresh_token_enc, token_type = EXCLUDED.token_type, scope = EXCLUDED.scope,
      expires_at = EXCLUDED.expires_at, client_id = EXCLUDED.client_id, client_secret_enc = EXCLUDED.client_secret_enc,
      authorization_server_url = EXCLUDED.authorization_server_url, resource_url = EXCLUDED.resource_url,
      generation = oauth_tokens.generation + 1, last_refresh_at = NULL, last_error = NULL, updated_at = now()
    RETURNING generation`;
  return row;
}

export async function getStoredTokens(sql: Db, box: SecretBox, serverId: string): Promise<StoredTokens | undefined> {
  const [row] = await sql<TokenRow[]>`SELECT * FROM oauth_tokens WHERE server_id = ${serverId}`;
  if (!row) return undefined;
  return {
    serverId: row.server_id,
    serverUrl: row.server_url,
    accessToken: box.decrypt(row.access_token_enc),
    refreshToken: decryptOptional(box, row.refresh_token_enc),
    tokenType: row.token_type,
    scope: row.scope,
    expiresAt: row.expires_at,
    clientId: row.client_id,
    clientSecret: decryptOptional(box, row.client_secret_enc),
    authorizationServerUrl: row.authorization_server_url,
    resourceUrl: row.resource_url,
    generation: row.generation,
    lastRefreshAt: row.last_refresh_at,
    lastError: row.last_error,
  };
}

export async function getTokenHealth(sql: Db, serverId: string): Promise<TokenHealth | undefined> {
  const [row] = await sql<{ expires_at: Date | null; has_refresh: boolean; has_client: boolean; last_refresh_at: Date | null; last_error: string | null }[]>`
    SELECT expires_at, refresh_token_enc IS NOT NULL AS has_refresh, client_id IS NOT NULL AS has_client, last_refresh_at, last_error
    FROM oauth_tokens WHERE server_id = ${serverId}`;
  if (!row) return undefined;
  return {
    expiresAt: row.expires_at,
    hasRefreshToken: row.has_refresh,
    hasClientId: row.has_client,
    lastRefreshAt: row.last_refresh_at,
    lastError: row.last_error,
  };
}

/**
 * Runs `fn` holding the server's refresh lock: a transaction-scoped advisory lock, so exactly one process (API or
 * worker) refreshes a grant at a time and the lock can never outlive a crashed holder.
 */
export async function withRefreshLock<T>(sql: Sql, serverId: string, fn: (tx: Db) => Promise<T>): Promise<T> {
  return (await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(hashtextextended(${`oauth-refresh:${serverId}`}, 0))`;
    return await fn(tx);
  })) as T;
}

/** Stores a refreshed grant; the rotated refresh token replaces the used one in the same write. */
export async function saveRefreshedTokens(sql: Db, box: SecretBox, serverId: string, tokens: RefreshedTokens): Promise<number> {
  const [row] = await sql<{ generation: number }[]>`
    UPDATE oauth_tokens SET
      access_token_enc = ${box.encrypt(tokens.accessToken)},
      refresh_token_enc = COALESCE(${tokens.refreshToken ? box.encrypt(tokens.refreshToken) : null}, refresh_token_enc),
      token_type = ${tokens.tokenType}, scope = COALESCE(${tokens.scope}, scope), expires_at = ${tokens.expiresAt},
      generation = generation + 1, last_refresh_at = now(), last_error = NULL, updated_at = now()
    WHERE server_id = ${serverId}
    RETURNING generation`;
  return row.generation;
}

/** A failed refresh is remembered for check-oauth; the grant itself is left as it was. */
export async function recordRefreshError(sql: Db, serverId: string, message: string): Promise<void> {
  await sql`UPDATE oauth_tokens SET last_error = ${message.slice(0, 500)}, updated_at = now() WHERE server_id = ${serverId}`;
}
