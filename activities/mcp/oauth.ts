import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { refreshAuthorization } from '@modelcontextprotocol/sdk/client/auth.js';
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Sql } from '../../db/connection.js';
import {
  claimRefresh,
  getStoredTokens,
  getTokenHealth,
  recordRefreshError,
  refreshState,
  saveImportedTokens,
  saveRefreshedTokens,
  type StoredTokens,
} from '../../db/oauthTokens.js';
import type { SecretBox } from '../../db/secretBox.js';
import type { SavedServer } from '../../db/servers.js';
import { OperationFailure } from '../errors.js';
import type { Logger } from '../logger.js';
import {
  advertisedAuthorization,
  canonicalResource,
  failureCode,
  fetchAuthorizationServerMetadata,
  fetchResourceMetadata,
  OAuthFailure,
  resourceAllowed,
  sameUrl,
  tokenEndpointFor,
  type AdvertisedAuthorization,
} from './discovery.js';
import { oauthRequired } from './failures.js';
import { Outbound, OutboundError } from './outbound.js';
import { challengesForOAuth, resourceMetadataPointer } from './probe.js';
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
  /** whether calls treat the server as OAuth-protected: saved so, advertised by the server, or a grant imported */
  useOAuth: boolean;
  serverUrl: string | null;
  /** whether the server publishes OAuth metadata; null when that was not asked (stdio, disabled) or not learned */
  advertisesOAuth: boolean | null;
  tokens: { imported: true; expiresAt: number | null; refreshable: boolean; lastRefreshAt: number | null; lastError: string | null } | null;
}

interface RefreshOutcome {
  tokens: StoredTokens | undefined;
  refreshed: boolean;
}

/** Token-endpoint error codes kept as they are in lastError (RFC 6749 §5.2, and RFC 8707's invalid_target). */
const TOKEN_ERROR_CODES = new Set(['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope', 'invalid_target']);

/** A lease outlives the refresh's own deadline by this much, so it never runs out under a refresh still going. */
const LEASE_MARGIN_MS = 10_000;
/** How often a process waiting for another one's refresh looks again. */
const WAIT_POLL_MS = 100;

/**
 * The OAuth grants of saved servers: imported by the caller, injected into every connection, refreshed before
 * expiry and after a 401. A refresh happens once per server at a time: in-process through a shared promise, across
 * processes (API replicas, workers) through a lease claimed with compare-and-set on the grant's generation, so a
 * rotating refresh token is never spent twice; no database transaction is open while the authorization server is
 * called. The authorization server is never a caller's choice: it is the one the saved server advertises (or an
 * operator set), pinned at import; its metadata names the only token endpoint the client secret is sent to.
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

  /**
   * Stores a caller's tokens. What the caller says about where they came from is checked against the saved server:
   * `authorizationServerUrl` must be one the server advertises (or the one an operator set), `oauthResourceUrl` the
   * server's own URL or the resource its metadata names. The authorization server is pinned with the grant.
   */
  async importTokens(server: SavedServer, input: TokenImport): Promise<{ imported: true; expiresAt: number | null }> {
    if (server.transportType === 'stdio' || !server.url) {
      throw new OperationFailure('VALIDATION_ERROR', 'OAuth tokens apply to HTTP and SSE servers only', { reason: 'NOT_AN_HTTP_SERVER' });
    }
    // Tokens are sent wherever the saved URL points: never accept tokens minted for another server.
    if (!sameUrl(input.serverUrl, server.url)) {
      throw new OperationFailure('VALIDATION_ERROR', "serverUrl does not match the saved server's URL", { reason: 'SERVER_URL_MISMATCH' });
    }
    const authorization = await this.#authorizationOf(server, server.url);
    let authorizationServerUrl = 'failure' in authorization ? null : authorization.authorizationServers[0];
    if (input.authorizationServerUrl !== undefined) {
      if ('failure' in authorization) {
        throw new OperationFailure(
          'VALIDATION_ERROR',
          `authorizationServerUrl cannot be checked: ${authorization.failure === 'server_disabled' ? 'the server is disabled, so it is not asked for its metadata' : `discovering the saved server's authorization server failed (${authorization.failure})`}; send the tokens without it, or have an operator set the server's authorization server`,
          { reason: 'AUTHORIZATION_SERVER_UNVERIFIED', discovery: authorization.failure },
        );
      }
      const claimed = input.authorizationServerUrl;
      authorizationServerUrl = authorization.authorizationServers.find((advertised) => sameUrl(advertised, claimed)) ?? null;
      if (!authorizationServerUrl) {
        throw new OperationFailure(
          'VALIDATION_ERROR',
          `authorizationServerUrl is not an authorization server of the saved server (${server.authorizationServerUrl ? 'set by an operator' : 'from its metadata'}): its tokens cannot be refreshed here`,
          { reason: 'AUTHORIZATION_SERVER_MISMATCH', authorizationServers: authorization.authorizationServers },
        );
      }
    }
    let resourceUrl = 'failure' in authorization ? null : (authorization.resource ?? null);
    if (input.oauthResourceUrl !== undefined) {
      const claimed = input.oauthResourceUrl;
      if (sameUrl(claimed, server.url)) resourceUrl = canonicalResource(server.url);
      else if (!(resourceUrl && sameUrl(claimed, resourceUrl))) {
        throw new OperationFailure('VALIDATION_ERROR', "oauthResourceUrl is neither the saved server's URL nor the resource its metadata names", {
          reason: 'RESOURCE_MISMATCH',
        });
      }
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
      authorizationServerUrl,
      resourceUrl,
    });
    return { imported: true, expiresAt: expiresAt?.getTime() ?? null };
  }

  /**
   * check-oauth: what the server needs and how healthy its grant is, without an MCP connection. Whether the server
   * advertises OAuth (`advertisesOAuth`) is learned the way calls learn it after a 401, so check-oauth's `useOAuth`
   * is true whenever calls would answer OAUTH_REQUIRED (for want of a grant, or because the server refused it).
   */
  async requirement(server: SavedServer): Promise<OAuthRequirement> {
    const serverUrl = server.transportType === 'stdio' ? null : server.url;
    const [health, advertisesOAuth] = serverUrl ? await Promise.all([getTokenHealth(this.deps.sql, server.id), this.advertisesOAuth(server)]) : [undefined, null];
    return {
      useOAuth: server.useOAuth || advertisesOAuth === true || health !== undefined,
      serverUrl,
      advertisesOAuth,
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

  /**
   * Whether an HTTP server advertises OAuth: an authorization server set by an operator, RFC 9728 protected-resource
   * metadata at its well-known URLs, (2025-03-26 servers) RFC 8414 / OpenID metadata at its origin, or else a 401
   * challenge pointing at its metadata (one GET of its URL without a token). No MCP request is made. Null when the
   * server is not asked (stdio, disabled) or the answer could not be had (unreachable, refused by the outbound
   * rules): "no" only when the server was asked and has none.
   */
  async advertisesOAuth(server: SavedServer): Promise<boolean | null> {
    if (server.transportType === 'stdio' || !server.url) return null;
    if (server.authorizationServerUrl) return true;
    if (!server.enabled) return null;
    const serverUrl = server.url;
    let outbound: Outbound;
    try {
      outbound = await Outbound.forServer(serverUrl, { signal: AbortSignal.timeout(this.deps.requestTimeoutMs) });
    } catch {
      return null;
    }
    try {
      if (await fetchResourceMetadata(serverUrl, undefined, outbound.fetch)) return true;
      if (await fetchAuthorizationServerMetadata(new URL('/', serverUrl).href, outbound.fetch)) return true;
      return await challengesForOAuth(server, outbound.fetch);
    } catch {
      return null;
    } finally {
      await outbound.close();
    }
  }

  /**
   * The operator's authorization server, else what the server advertises; a failed discovery as its code. A disabled
   * server is not contacted (its grant is pinned at its first refresh instead).
   */
  async #authorizationOf(server: SavedServer, serverUrl: string): Promise<AdvertisedAuthorization | { failure: string }> {
    if (server.authorizationServerUrl) return { authorizationServers: [server.authorizationServerUrl] };
    if (!server.enabled) return { failure: 'server_disabled' };
    const outbound = await Outbound.forServer(serverUrl, { signal: AbortSignal.timeout(this.deps.requestTimeoutMs) });
    try {
      return await discover(server, serverUrl, outbound.fetch);
    } catch (error) {
      return { failure: failureCode('resource_metadata', error) };
    } finally {
      await outbound.close();
    }
  }

  /** In-process single flight: concurrent callers share one refresh (and one wait for another process's). */
  #refresh(server: SavedServer, seenGeneration: number): Promise<RefreshOutcome> {
    const running = this.#refreshing.get(server.id);
    if (running) return running;
    const outcome = this.#refreshOnce(server, seenGeneration).finally(() => this.#refreshing.delete(server.id));
    this.#refreshing.set(server.id, outcome);
    return outcome;
  }

  /** Across processes: read, claim a lease (no transaction stays open), call the authorization server, swap. */
  async #refreshOnce(server: SavedServer, seenGeneration: number): Promise<RefreshOutcome> {
    const { sql, box, log } = this.deps;
    const stored = await getStoredTokens(sql, box, server.id);
    // Another process refreshed (or the caller re-imported) since the caller looked: use that.
    if (!stored || stored.generation !== seenGeneration || !server.url) return { tokens: stored, refreshed: false };
    const client = clientInformation(stored, server);
    if (!stored.refreshToken || !client) {
      await recordRefreshError(sql, { serverId: server.id, generation: seenGeneration }, stored.refreshToken ? 'no_client_information' : 'no_refresh_token');
      return { tokens: stored, refreshed: false };
    }
    const owner = randomUUID();
    const claim = await claimRefresh(sql, server.id, seenGeneration, owner, this.#leaseMs);
    if (claim !== 'claimed') {
      if (claim === 'busy') await this.#waitForOtherRefresh(server.id, seenGeneration);
      return { tokens: await getStoredTokens(sql, box, server.id), refreshed: false };
    }
    const lease = { serverId: server.id, generation: seenGeneration, owner };
    try {
      const { tokens: fresh, authorizationServerUrl } = await this.#requestRefresh(server, server.url, stored, stored.refreshToken, client);
      const expiresAt = fresh.expires_in !== undefined ? new Date(Date.now() + fresh.expires_in * 1000) : null;
      const refreshed = { accessToken: fresh.access_token, refreshToken: fresh.refresh_token ?? null, tokenType: fresh.token_type, scope: fresh.scope ?? null, expiresAt };
      const generation = await saveRefreshedTokens(sql, box, lease, refreshed, authorizationServerUrl);
      // The grant was re-imported meanwhile: the caller's new tokens win over these.
      if (generation === undefined) return { tokens: await getStoredTokens(sql, box, server.id), refreshed: false };
      log.info({ serverId: server.id, generation }, 'refreshed OAuth tokens');
      return {
        tokens: { ...stored, ...refreshed, refreshToken: refreshed.refreshToken ?? stored.refreshToken, authorizationServerUrl: stored.authorizationServerUrl ?? authorizationServerUrl, generation, lastError: null },
        refreshed: true,
      };
    } catch (error) {
      const code = error instanceof OAuthFailure ? error.code : 'refresh_failed';
      log.warn({ serverId: server.id, error: code }, 'OAuth token refresh failed');
      await recordRefreshError(sql, lease, code);
      return { tokens: stored, refreshed: false };
    }
  }

  /** The lease covers the refresh's whole deadline and a margin. */
  get #leaseMs(): number {
    return this.deps.requestTimeoutMs + LEASE_MARGIN_MS;
  }

  /** Another process holds the lease: wait (bounded by one lease) until its refresh lands or it lets go. */
  async #waitForOtherRefresh(serverId: string, generation: number): Promise<void> {
    const deadline = Date.now() + this.#leaseMs;
    while (Date.now() < deadline) {
      await sleep(WAIT_POLL_MS);
      const state = await refreshState(this.deps.sql, serverId);
      if (!state || state.generation !== generation || !state.leased) return;
    }
  }

  /**
   * The refresh request, at the pinned authorization server (else the operator's, else the one the saved server
   * advertises), at the token endpoint its metadata names on its own origin, with the resource checked against the
   * saved URL. Every request goes through the outbound guard and shares one deadline.
   */
  async #requestRefresh(server: SavedServer, serverUrl: string, stored: StoredTokens, refreshToken: string, client: OAuthClientInformationMixed): Promise<{ tokens: OAuthTokens; authorizationServerUrl: string }> {
    const outbound = await Outbound.forServer(serverUrl, { signal: AbortSignal.timeout(this.deps.requestTimeoutMs) });
    try {
      let authorizationServerUrl = stored.authorizationServerUrl ?? server.authorizationServerUrl;
      let resource = stored.resourceUrl && resourceAllowed(stored.resourceUrl, serverUrl) ? stored.resourceUrl : undefined;
      if (!authorizationServerUrl) {
        const advertised = await discover(server, serverUrl, outbound.fetch);
        authorizationServerUrl = advertised.authorizationServers[0];
        resource ??= advertised.resource;
      }
      const found = await fetchAuthorizationServerMetadata(authorizationServerUrl, outbound.fetch);
      const tokenEndpoint = tokenEndpointFor(authorizationServerUrl, found?.metadata, serverUrl);
      let status: number | undefined;
      // The client secret goes to the token endpoint and nowhere else, whatever the library would like to call.
      const toTokenEndpoint: FetchLike = async (url, init) => {
        if (new URL(String(url)).href !== tokenEndpoint.href) throw new OAuthFailure('token_endpoint_cross_origin');
        const response = await outbound.fetch(url, init);
        status = response.status;
        return response;
      };
      try {
        const tokens = await refreshAuthorization(authorizationServerUrl, {
          metadata: found?.metadata,
          clientInformation: client,
          refreshToken,
          resource: resource ?? canonicalResource(serverUrl),
          fetchFn: toTokenEndpoint,
        });
        return { tokens, authorizationServerUrl };
      } catch (error) {
        throw new OAuthFailure(tokenFailureCode(error, status));
      }
    } finally {
      await outbound.close();
    }
  }
}

/** Import and refresh start where doctor does: the resource_metadata pointer of the server's own 401 challenge. */
async function discover(server: SavedServer, serverUrl: string, fetch: FetchLike): Promise<AdvertisedAuthorization> {
  return await advertisedAuthorization(serverUrl, await resourceMetadataPointer(server, fetch), fetch);
}

/** What a failed token request is remembered as: a standard OAuth error code, else our words and the HTTP status. */
function tokenFailureCode(error: unknown, status: number | undefined): string {
  if (error instanceof OAuthFailure || error instanceof OutboundError) return failureCode('token_endpoint', error);
  if (status === undefined) return error instanceof Error && error.name === 'TimeoutError' ? 'token_endpoint_timeout' : 'refresh_failed';
  if (status >= 200 && status < 300) return 'token_endpoint_invalid_response';
  if (error instanceof OAuthError && TOKEN_ERROR_CODES.has(error.errorCode)) return error.errorCode;
  return `token_endpoint_http_${status}`;
}

const credentials = (tokens: StoredTokens): Credentials => ({ accessToken: tokens.accessToken, generation: tokens.generation });

/**
 * The client the tokens were imported with, else the one an operator saved with the server (pre-registered). A
 * caller's own client never borrows the saved secret.
 */
function clientInformation(stored: StoredTokens, server: SavedServer): OAuthClientInformationMixed | undefined {
  if (stored.clientId) return { client_id: stored.clientId, ...(stored.clientSecret ? { client_secret: stored.clientSecret } : {}) };
  if (server.oauthClientId) return { client_id: server.oauthClientId, ...(server.clientSecret ? { client_secret: server.clientSecret } : {}) };
  return undefined;
}

const refreshable = (stored: StoredTokens, server: SavedServer) => stored.refreshToken !== null && clientInformation(stored, server) !== undefined;
