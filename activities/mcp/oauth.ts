import { discoverAuthorizationServerMetadata, discoverOAuthServerInfo, refreshAuthorization } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Sql } from '../../db/connection.js';
import {
  getStoredTokens,
  getTokenHealth,
  recordRefreshError,
  saveImportedTokens,
  saveRefreshedTokens,
  withRefreshLock,
  type StoredTokens,
} from '../../db/oauthTokens.js';
import type { SecretBox } from '../../db/secretBox.js';
import type { SavedServer } from '../../db/servers.js';
import { OperationFailure } from '../errors.js';
import type { Logger } from '../logger.js';
import { oauthRequired } from './failures.js';
import type { Credentials } from './transports.js';

/** Refresh this long before the access token expires, so no call goes out with a token about to die. */
export const REFRESH_MARGIN_MS = 60_000;

/** The body of /oauth/import-tokens (contract-notes), validated at the edge. */
export interface TokenImport {
  serverUrl: string;
  tokens: { access_token: string; refresh_token?: string; expires_in?: number; token_type?: string; scope?: string };
  clientInformation?: { clientId: string; clientSecret?: string };
  authorizationServerUrl?: string;
  oauthResourceUrl?: string;
}

export interface OAuthRequirement {
  useOAuth: boolean;
  serverUrl: string | null;
  tokens: { imported: true; expiresAt: number | null; refreshable: boolean; lastRefreshAt: number | null; lastError: string | null } | null;
}

interface RefreshOutcome {
  tokens: StoredTokens | undefined;
  refreshed: boolean;
}

/**
 * The OAuth grants of saved servers: imported by the caller, injected into every connection, refreshed before
 * expiry and after a 401. A refresh happens once per server at a time: in-process through a shared promise,
 * across processes (API replicas, workers) through an advisory lock plus the generation check, so a rotating
 * refresh token is never spent twice.
 */
export class OAuthGrants {
  readonly #refreshing = new Map<string, Promise<RefreshOutcome>>();

  constructor(private readonly deps: { sql: Sql; box: SecretBox; log: Logger; requestTimeoutMs: number }) {}

  /** The token to connect with; undefined when the server has no grant and does not need one. */
  async credentialsFor(server: SavedServer): Promise<Credentials | undefined> {
    if (server.transportType === 'stdio') return undefined;
    const stored = await getStoredTokens(this.deps.sql, this.deps.box, server.id);
    if (!stored) {
      if (server.useOAuth) throw oauthRequired(server, `server '${server.name}' needs an OAuth grant: import tokens with /oauth/import-tokens`);
      return undefined;
    }
    // A grant whose last refresh failed is not retried on every call; a 401 still forces one more attempt.
    const dueForRefresh = stored.expiresAt !== null && stored.expiresAt.getTime() - Date.now() < REFRESH_MARGIN_MS;
    if (dueForRefresh && !stored.lastError && refreshable(stored, server)) {
      const outcome = await this.#refresh(server, stored.generation);
      if (outcome.tokens) return credentials(outcome.tokens);
    }
    return credentials(stored);
  }

  /**
   * The server refused the token of `generation`: newer tokens when another call (or process) already has them,
   * else one refresh. Undefined when there is nothing better to try, i.e. the caller must answer OAUTH_REQUIRED.
   */
  async afterUnauthorized(server: SavedServer, generation: number | undefined): Promise<Credentials | undefined> {
    if (server.transportType === 'stdio') return undefined;
    const stored = await getStoredTokens(this.deps.sql, this.deps.box, server.id);
    if (!stored) return undefined;
    if (stored.generation !== generation) return credentials(stored);
    const outcome = await this.#refresh(server, generation);
    return outcome.tokens && outcome.tokens.generation !== generation ? credentials(outcome.tokens) : undefined;
  }

  async importTokens(server: SavedServer, input: TokenImport): Promise<{ imported: true; expiresAt: number | null }> {
    if (server.transportType === 'stdio' || !server.url) {
      throw new OperationFailure('VALIDATION_ERROR', 'OAuth tokens apply to HTTP and SSE servers only', { reason: 'NOT_AN_HTTP_SERVER' });
    }
    // Tokens are sent wherever the saved URL points: never accept tokens minted for another server.
    if (!sameResource(input.serverUrl, server.url)) {
      throw new OperationFailure('VALIDATION_ERROR', "serverUrl does not match the saved server's URL", { reason: 'SERVER_URL_MISMATCH' });
    }
    const expiresAt = input.tokens.expires_in !== undefined ? new Date(Date.now() + input.tokens.expires_in * 1000) : null;
    await saveImportedTokens(this.deps.sql, this.deps.box, {
      serverId: server.id,
      serverUrl: server.url,
      accessToken: input.tokens.access_token,
      refreshToken: input.tokens.refresh_token ?? null,
      tokenType: input.tokens.token_type ?? 'Bearer',
      scope: input.tokens.scope ?? null,
      expiresAt,
      clientId: input.clientInformation?.clientId ?? null,
      clientSecret: input.clientInformation?.clientSecret ?? null,
      authorizationServerUrl: input.authorizationServerUrl ?? null,
      resourceUrl: input.oauthResourceUrl ?? null,
    });
    return { imported: true, expiresAt: expiresAt?.getTime() ?? null };
  }

  /** check-oauth: what the server needs and how healthy its grant is, without connecting to it. */
  async requirement(server: SavedServer): Promise<OAuthRequirement> {
    const serverUrl = server.transportType === 'stdio' ? null : server.url;
    const health = serverUrl ? await getTokenHealth(this.deps.sql, server.id) : undefined;
    return {
      useOAuth: server.useOAuth,
      serverUrl,
      tokens: health
        ? {
            imported: true,
            expiresAt: health.expiresAt?.getTime() ?? null,
            refreshable: health.hasRefreshToken && (health.hasClientId || server.oauthClientId !== null),
            lastRefreshAt: health.lastRefreshAt?.getTime() ?? null,
            lastError: health.lastError,
          }
        : null,
    };
  }

  /** In-process single flight: concurrent callers share one refresh (and one database lock wait). */
  #refresh(server: SavedServer, seenGeneration: number): Promise<RefreshOutcome> {
    const running = this.#refreshing.get(server.id);
    if (running) return running;
    const outcome = this.#refreshLocked(server, seenGeneration).finally(() => this.#refreshing.delete(server.id));
    this.#refreshing.set(server.id, outcome);
    return outcome;
  }

  async #refreshLocked(server: SavedServer, seenGeneration: number): Promise<RefreshOutcome> {
    const { sql, box, log } = this.deps;
    return await withRefreshLock(sql, server.id, async (tx) => {
      const stored = await getStoredTokens(tx, box, server.id);
      // Another process refreshed (or the caller re-imported) while we waited for the lock: use that.
      if (!stored || stored.generation !== seenGeneration) return { tokens: stored, refreshed: false };
      const client = clientInformation(stored, server);
      if (!stored.refreshToken || !client) {
        await recordRefreshError(tx, server.id, stored.refreshToken ? 'cannot refresh: no client information was imported' : 'cannot refresh: no refresh token was imported');
        return { tokens: stored, refreshed: false };
      }
      try {
        const fresh = await this.#requestRefresh(stored, stored.refreshToken, client);
        const expiresAt = fresh.expires_in !== undefined ? new Date(Date.now() + fresh.expires_in * 1000) : null;
        const refreshed = { accessToken: fresh.access_token, refreshToken: fresh.refresh_token ?? null, tokenType: fresh.token_type, scope: fresh.scope ?? null, expiresAt };
        const generation = await saveRefreshedTokens(tx, box, server.id, refreshed);
        log.info({ serverId: server.id, generation }, 'refreshed OAuth tokens');
        return { tokens: { ...stored, ...refreshed, refreshToken: refreshed.refreshToken ?? stored.refreshToken, generation, lastError: null }, refreshed: true };
      } catch (error) {
        const message = describeRefreshError(error);
        log.warn({ serverId: server.id, error: message }, 'OAuth token refresh failed');
        await recordRefreshError(tx, server.id, message);
        return { tokens: stored, refreshed: false };
      }
    });
  }

  /** The token endpoint comes from the authorization server's metadata, found from what was imported. */
  async #requestRefresh(stored: StoredTokens, refreshToken: string, client: { client_id: string; client_secret?: string }) {
    // The database lock is held meanwhile: every request to the authorization server has a deadline.
    const fetchFn: FetchLike = (url, init) => fetch(url, { ...init, signal: AbortSignal.timeout(this.deps.requestTimeoutMs) });
    let authorizationServerUrl = stored.authorizationServerUrl;
    let resource = stored.resourceUrl ?? undefined;
    let metadata;
    if (authorizationServerUrl) {
      metadata = await discoverAuthorizationServerMetadata(authorizationServerUrl, { fetchFn });
    } else {
      const info = await discoverOAuthServerInfo(stored.serverUrl, { fetchFn });
      authorizationServerUrl = info.authorizationServerUrl;
      metadata = info.authorizationServerMetadata;
      resource ??= info.resourceMetadata?.resource;
    }
    return await refreshAuthorization(authorizationServerUrl, { metadata, clientInformation: client, refreshToken, resource, fetchFn });
  }
}

const credentials = (tokens: StoredTokens): Credentials => ({ accessToken: tokens.accessToken, generation: tokens.generation });

/** The imported client, else the one saved with the server (pre-registered). */
function clientInformation(stored: StoredTokens, server: SavedServer) {
  if (stored.clientId) return { client_id: stored.clientId, ...(stored.clientSecret ? { client_secret: stored.clientSecret } : {}) };
  if (server.oauthClientId) return { client_id: server.oauthClientId, ...(server.clientSecret ? { client_secret: server.clientSecret } : {}) };
  return undefined;
}

const refreshable = (stored: StoredTokens, server: SavedServer) => stored.refreshToken !== null && clientInformation(stored, server) !== undefined;

function sameResource(a: string, b: string): boolean {
  const normalize = (value: string) => {
    const url = new URL(value);
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}${url.search}`;
  };
  try {
    return normalize(a) === normalize(b);
  } catch {
    return false;
  }
}

/** OAuth errors carry a code and the server's description; neither contains a token. */
function describeRefreshError(error: unknown): string {
  const oauth = error as { errorCode?: string; message?: string } | null;
  if (oauth?.errorCode) return `${oauth.errorCode}: ${oauth.message ?? ''}`.trim();
  if (error instanceof Error && error.name === 'TimeoutError') return 'the authorization server did not answer in time';
  return error instanceof Error ? error.message : 'refresh failed';
}
