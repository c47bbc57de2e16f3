import type { Db } from './connection.js';
import type {
  ImportedTokens,
  RefreshClaim,
  RefreshedTokens,
  RefreshLease,
  StoredTokens,
  TokenHealth,
  TokenSource,
} from '../domain/ports/oauthTokenStore.js';
import type { SecretBox } from '../domain/ports/secretBox.js';

interface TokenRow {
  server_id: string;
  server_url: string;
  access_token_enc: string | null;
  refresh_token_enc: string | null;
  token_type: string;
  scope: string | null;
  expires_at: Date | null;
  client_id: string | null;
  client_secret_enc: string | null;
  authorization_server_url: string | null;
  resource_url: string | null;
  generation: number;
  last_refresh_at: Date | null;
  last_error: string | null;
  source: TokenSource;
}

const decryptOptional = (box: SecretBox, value: string | null) => (value ? box.decrypt(value) : null);

/** Import replaces the whole grant (a fresh one from the caller) and starts a new generation. */
export async function saveImportedTokens(
  sql: Db,
  box: SecretBox,
  input: ImportedTokens,
): Promise<{ generation: number }> {
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
      source = 'caller', generation = oauth_tokens.generation + 1, last_refresh_at = NULL, last_error = NULL,
      refresh_lease_owner = NULL, refresh_lease_until = NULL, updated_at = clock_timestamp()
    RETURNING generation`;
  return row;
}

export async function getStoredTokens(sql: Db, box: SecretBox, serverId: string): Promise<StoredTokens | undefined> {
  const [row] = await sql<TokenRow[]>`SELECT * FROM oauth_tokens WHERE server_id = ${serverId}`;
  if (!row) return undefined;
  return {
    serverId: row.server_id,
    serverUrl: row.server_url,
    accessToken: decryptOptional(box, row.access_token_enc),
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
    source: row.source,
  };
}

/**
 * The grant row of a machine-to-machine server, created empty (no token yet) if there is none, so that its first
 * token request is claimed with the same lease as every later one. Its generation.
 */
export async function openMachineGrant(sql: Db, serverId: string, serverUrl: string): Promise<number> {
  await sql`
    INSERT INTO oauth_tokens (server_id, server_url, access_token_enc, source)
    VALUES (${serverId}, ${serverUrl}, NULL, 'client_credentials')
    ON CONFLICT (server_id) DO NOTHING`;
  const [row] = await sql<{ generation: number }[]>`SELECT generation FROM oauth_tokens WHERE server_id = ${serverId}`;
  return row.generation;
}

export async function getTokenHealth(sql: Db, serverId: string): Promise<TokenHealth | undefined> {
  const [row] = await sql<
    {
      source: TokenSource;
      has_access: boolean;
      expires_at: Date | null;
      has_refresh: boolean;
      has_client: boolean;
      last_refresh_at: Date | null;
      last_error: string | null;
    }[]
  >`
    SELECT source, access_token_enc IS NOT NULL AS has_access, expires_at, refresh_token_enc IS NOT NULL AS has_refresh,
           client_id IS NOT NULL AS has_client, last_refresh_at, last_error
    FROM oauth_tokens WHERE server_id = ${serverId}`;
  if (!row) return undefined;
  return {
    source: row.source,
    hasAccessToken: row.has_access,
    expiresAt: row.expires_at,
    hasRefreshToken: row.has_refresh,
    hasClientId: row.has_client,
    lastRefreshAt: row.last_refresh_at,
    lastError: row.last_error,
  };
}

/**
 * Claims the refresh of the grant at `generation` for `leaseMs`: one statement, no transaction left open while
 * the authorization server is called (RefreshClaim says what the other answers mean).
 */
export async function claimRefresh(
  sql: Db,
  serverId: string,
  generation: number,
  owner: string,
  leaseMs: number,
): Promise<RefreshClaim> {
  const claimed = await sql`
    UPDATE oauth_tokens SET refresh_lease_owner = ${owner}, refresh_lease_until = now() + ${leaseMs} * interval '1 millisecond'
    WHERE server_id = ${serverId} AND generation = ${generation} AND (refresh_lease_until IS NULL OR refresh_lease_until <= now())`;
  if (claimed.count === 1) return 'claimed';
  const state = await refreshState(sql, serverId);
  if (!state) return 'gone';
  return state.generation !== generation ? 'changed' : 'busy';
}

/** The grant's generation and whether a refresh lease is running on it (what a process waiting for another reads). */
export async function refreshState(
  sql: Db,
  serverId: string,
): Promise<{ generation: number; leased: boolean } | undefined> {
  const [row] = await sql<{ generation: number; leased: boolean }[]>`
    SELECT generation, COALESCE(refresh_lease_until > now(), false) AS leased FROM oauth_tokens WHERE server_id = ${serverId}`;
  return row;
}

/**
 * Stores a refreshed grant, compare-and-swap: only while `owner` still holds the lease on `generation`. The rotated
 * refresh token replaces the used one in the same write; the authorization server and the resource used are pinned
 * if none was.
 * Undefined when the lease was lost (the grant was re-imported meanwhile): these tokens are not stored.
 */
export async function saveRefreshedTokens(
  sql: Db,
  box: SecretBox,
  lease: RefreshLease,
  tokens: RefreshedTokens,
  used: { authorizationServerUrl: string; resourceUrl: string },
): Promise<number | undefined> {
  const [row] = await sql<{ generation: number }[]>`
    UPDATE oauth_tokens SET
      access_token_enc = ${box.encrypt(tokens.accessToken)},
      refresh_token_enc = COALESCE(${tokens.refreshToken ? box.encrypt(tokens.refreshToken) : null}, refresh_token_enc),
      token_type = ${tokens.tokenType}, scope = COALESCE(${tokens.scope}, scope), expires_at = ${tokens.expiresAt},
      authorization_server_url = COALESCE(authorization_server_url, ${used.authorizationServerUrl}),
      resource_url = COALESCE(resource_url, ${used.resourceUrl}),
      generation = generation + 1, last_refresh_at = now(), last_error = NULL,
      refresh_lease_owner = NULL, refresh_lease_until = NULL, updated_at = clock_timestamp()
    WHERE server_id = ${lease.serverId} AND generation = ${lease.generation} AND refresh_lease_owner = ${lease.owner}
    RETURNING generation`;
  return row?.generation;
}

/**
 * A failed refresh is remembered for check-oauth as a fixed code (never a remote server's words); the grant itself
 * is left as it was. Written only to the grant at `generation` (a re-import meanwhile starts clean) and, with
 * `owner`, only while that lease is held, which it releases.
 */
export async function recordRefreshError(
  sql: Db,
  grant: { serverId: string; generation: number; owner?: string },
  code: string,
): Promise<void> {
  const owner = grant.owner ?? null;
  await sql`
    UPDATE oauth_tokens SET last_error = ${code.slice(0, 100)}, updated_at = clock_timestamp(),
      -- the lease is released only by its owner
      refresh_lease_owner = CASE WHEN ${owner}::text IS NULL THEN refresh_lease_owner END,
      refresh_lease_until = CASE WHEN ${owner}::text IS NULL THEN refresh_lease_until END
    WHERE server_id = ${grant.serverId} AND generation = ${grant.generation}
      AND (${owner}::text IS NULL OR refresh_lease_owner = ${owner})`;
}
