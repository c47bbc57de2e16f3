/**
 * The OAuth grants of saved servers as the MCP client keeps them (domain/mcp/oauth.ts: read, imported, refreshed
 * under a lease across processes), declared here and implemented outside the domain (db/oauthTokenStore.ts), which
 * seals and opens their secrets. No transaction stays open while an authorization server is called: each write is
 * one statement, guarded by the grant's generation and lease.
 */

/** A grant as a caller imports it. */
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
  /** the authorization server pinned for this grant (discovered or set by an operator, never a caller's word) */
  authorizationServerUrl: string | null;
  /** the RFC 8707 resource, checked against the saved server's URL */
  resourceUrl: string | null;
}

/** Where a grant's tokens come from: a caller's import, or Runway's own client_credentials requests. */
export type TokenSource = 'caller' | 'client_credentials';

/** A server's OAuth grant with its secrets opened: only domain/mcp ever sees this. */
export interface StoredTokens extends Omit<ImportedTokens, 'accessToken'> {
  /** null only for a machine grant whose first token has not been obtained yet */
  accessToken: string | null;
  source: TokenSource;
  /** bumped on import and on every refresh: the pool key, and the guard that makes refresh happen once */
  generation: number;
  lastRefreshAt: Date | null;
  lastError: string | null;
}

/** What check-oauth may show: no secret is read or opened. */
export interface TokenHealth {
  source: TokenSource;
  hasAccessToken: boolean;
  expiresAt: Date | null;
  hasRefreshToken: boolean;
  hasClientId: boolean;
  lastRefreshAt: Date | null;
  lastError: string | null;
}

/** What a refresh (or a client_credentials request) obtained. */
export interface RefreshedTokens {
  accessToken: string;
  /** null keeps the current refresh token (the authorization server did not rotate it) */
  refreshToken: string | null;
  tokenType: string;
  scope: string | null;
  expiresAt: Date | null;
}

/**
 * How claiming a refresh went. 'changed': the grant is no longer at that generation (someone refreshed or
 * re-imported); 'busy': another process holds an unexpired lease; 'gone': the grant was deleted.
 */
export type RefreshClaim = 'claimed' | 'changed' | 'busy' | 'gone';

/** The refresh lease a process holds on a grant at one generation. */
export interface RefreshLease {
  serverId: string;
  generation: number;
  owner: string;
}

export interface OAuthTokenStore {
  /** The server's grant, its secrets opened. */
  find(serverId: string): Promise<StoredTokens | undefined>;
  /** The health of the server's grant, no secret read. */
  health(serverId: string): Promise<TokenHealth | undefined>;
  /** Replaces the server's grant with a caller's (a fresh one) and starts a new generation. */
  saveImported(tokens: ImportedTokens): Promise<{ generation: number }>;
  /**
   * The grant of a machine-to-machine server, created empty (no token yet) if there is none, so that its first
   * token request is claimed with the same lease as every later one. Its generation.
   */
  openMachineGrant(serverId: string, serverUrl: string): Promise<number>;
  /** Claims the refresh of the grant at `generation` for `leaseMs`, in one statement. */
  claimRefresh(serverId: string, generation: number, owner: string, leaseMs: number): Promise<RefreshClaim>;
  /** The grant's generation and whether a refresh lease is running on it (what a process waiting for another reads). */
  refreshState(serverId: string): Promise<{ generation: number; leased: boolean } | undefined>;
  /**
   * Stores a refreshed grant only while the lease is still held (compare-and-swap), the rotated refresh token in the
   * same write, and pins the authorization server and resource used if none was. Its new generation; undefined
   * when the lease was lost (the grant was re-imported meanwhile): these tokens are not stored.
   */
  saveRefreshed(
    lease: RefreshLease,
    tokens: RefreshedTokens,
    used: { authorizationServerUrl: string; resourceUrl: string },
  ): Promise<number | undefined>;
  /**
   * Remembers a failed refresh as a fixed code, on the grant at `generation` only and, with `owner`, only while that
   * lease is held, which it releases; the grant itself is left as it was.
   */
  recordRefreshError(grant: { serverId: string; generation: number; owner?: string }, code: string): Promise<void>;
}
