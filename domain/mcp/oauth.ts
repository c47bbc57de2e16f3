import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  AuthorizationServerMismatchError,
  fetchToken,
  IssuerMismatchError,
  refreshAuthorization,
} from '@modelcontextprotocol/client';
import { OAuthError } from '@modelcontextprotocol/client';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/client';
import type { FetchLike } from '@modelcontextprotocol/client';
import { OperationFailure } from '../failures.js';
import type { Logger } from '../ports/logger.js';
import type { OAuthTokenStore, StoredTokens } from '../ports/oauthTokenStore.js';
import { machineClient } from './clientCredentials.js';
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
import type { SavedServer } from '../catalog/server.js';

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
  /** who obtains the server's tokens: a caller (import-tokens), or Runway itself (client_credentials) */
  tokenSource: 'caller' | 'client_credentials';
  tokens: {
    imported: boolean;
    expiresAt: number | null;
    refreshable: boolean;
    lastRefreshAt: number | null;
    lastError: string | null;
  } | null;
}

interface RefreshOutcome {
  tokens: StoredTokens | undefined;
  refreshed: boolean;
}

/** Token-endpoint error codes kept as they are in lastError (RFC 6749 §5.2, and RFC 8707's invalid_target). */
const TOKEN_ERROR_CODES = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'invalid_target',
]);

/** A lease outlives the refresh's own deadline by this much, so it never runs out under a refresh still going. */
const LEASE_MARGIN_MS = 10_000;
/** How often a process waiting for another one's refresh looks again. */
const WAIT_POLL_MS = 100;

/** What a token request asks for: a refresh of an imported grant, or a new token for a machine-to-machine server. */
type TokenRequest =
  | { grant: 'refresh_token'; refreshToken: string; client: OAuthClientInformationMixed }
  | { grant: 'client_credentials' };

/**
 * The OAuth grants of saved servers: imported by the caller (or, for a machine-to-machine server, obtained by Runway
 * itself with the client_credentials grant), injected into every connection, refreshed (or obtained anew) before
 * expiry and after a 401. A refresh happens once per server at a time: in-process through a shared promise, across
 * processes (API replicas, workers) through a lease claimed with compare-and-set on the grant's generation, so a
 * rotating refresh token is never spent twice; no database transaction is open while the authorization server is
 * called. The authorization server is never a caller's choice: it is the one the saved server advertises (or an
 * operator set), pinned at import; its metadata names the only token endpoint the client secret is sent to.
 */
export class OAuthGrants {
  readonly #refreshing = new Map<string, Promise<RefreshOutcome>>();

  constructor(private readonly deps: { tokens: OAuthTokenStore; log: Logger; requestTimeoutMs: number }) {}

  /** The token to connect with; undefined when the server has no grant and does not need one. */
  async credentialsFor(server: SavedServer): Promise<Credentials | undefined> {
    if (server.transportType === 'stdio') return undefined;
    if (isMachineGrant(server)) return await this.#machineCredentials(server);
    const stored = await this.deps.tokens.find(server.id);
    if (!stored) {
      if (server.useOAuth)
        throw oauthRequired(
          server,
          `server '${server.name}' needs an OAuth grant: import tokens with /oauth/import-tokens`,
        );
      return undefined;
    }
    // A grant whose last refresh failed is not retried on every call while its token is good; a 401 (or the token
    // expiring) still forces one more attempt.
    if (((dueForRefresh(stored) && !stored.lastError) || hasExpired(stored)) && refreshable(stored, server)) {
      const outcome = await this.#refresh(server, stored.generation);
      if (outcome.tokens && !hasExpired(outcome.tokens)) return credentials(outcome.tokens);
    }
    // A token known to have expired is not sent anywhere: the caller hears it at once.
    if (hasExpired(stored)) {
      const lastError = (await this.deps.tokens.health(server.id))?.lastError ?? null;
      const failure = oauthRequired(
        server,
        `the OAuth access token of server '${server.name}' has expired and could not be refreshed${lastError ? ` (${lastError})` : ''}: import new tokens with /oauth/import-tokens`,
      );
      throw new OperationFailure(failure.code, failure.message, {
        ...failure.details,
        reason: 'TOKEN_EXPIRED',
        ...(lastError ? { lastError } : {}),
      });
    }
    return credentials(stored);
  }

  /**
   * A machine-to-machine server's token: the stored one while it is good, else a new one from the authorization
   * server (single flight, one lease across processes). Without any usable token every call asks once more: nobody
   * else can get one. A token due for renewal whose last renewal failed is still used until it expires or is refused.
   */
  async #machineCredentials(server: SavedServer): Promise<Credentials> {
    const stored = await this.deps.tokens.find(server.id);
    const usable = stored?.accessToken && !hasExpired(stored);
    if (stored && usable && (!dueForRefresh(stored) || stored.lastError)) return credentials(stored)!;
    const generation = stored?.generation ?? (await this.deps.tokens.openMachineGrant(server.id, server.url ?? ''));
    const { tokens: latest, refreshed } = await this.#refresh(server, generation);
    // New tokens (ours or another process's), else the old ones while they are still good.
    const obtained =
      latest && (refreshed || latest.generation !== generation || usable) ? credentials(latest) : undefined;
    if (obtained) return obtained;
    throw await this.#machineGrantFailed(server);
  }

  /** OAUTH_REQUIRED for a machine-to-machine server: no caller can help; the fixed code says what went wrong. */
  async #machineGrantFailed(server: SavedServer): Promise<OperationFailure> {
    const lastError = (await this.deps.tokens.health(server.id))?.lastError ?? 'no_token';
    const failure = oauthRequired(
      server,
      `server '${server.name}' gets its OAuth tokens with the client_credentials grant, and the authorization server issued none (${lastError}); an operator must check the server's OAuth client`,
    );
    return new OperationFailure(failure.code, failure.message, {
      ...failure.details,
      reason: 'CLIENT_CREDENTIALS_FAILED',
      lastError,
    });
  }

  /**
   * The server refused the token of `generation`: newer tokens when another call (or process) already has them,
   * else one refresh. Undefined when there is nothing better to try, i.e. the caller must answer OAUTH_REQUIRED.
   */
  async afterUnauthorized(server: SavedServer, generation: number | undefined): Promise<Credentials | undefined> {
    if (server.transportType === 'stdio') return undefined;
    const stored = await this.deps.tokens.find(server.id);
    if (!stored) return isMachineGrant(server) ? await this.#machineCredentials(server) : undefined;
    if (stored.generation !== generation && stored.accessToken) return credentials(stored);
    const outcome = await this.#refresh(server, stored.generation);
    if (outcome.tokens && outcome.tokens.generation !== generation && outcome.tokens.accessToken)
      return credentials(outcome.tokens);
    // A machine grant the authorization server would not renew: say so, rather than "import tokens".
    if (isMachineGrant(server)) throw await this.#machineGrantFailed(server);
    return undefined;
  }

  /**
   * Stores a caller's tokens. What the caller says about where they came from is checked against the saved server:
   * `authorizationServerUrl` must be one the server advertises (or the one an operator set), `oauthResourceUrl` the
   * server's own URL or the resource its metadata names. The authorization server is pinned with the grant.
   */
  async importTokens(server: SavedServer, input: TokenImport): Promise<{ imported: true; expiresAt: number | null }> {
    if (server.transportType === 'stdio' || !server.url) {
      throw new OperationFailure('VALIDATION_ERROR', 'OAuth tokens apply to HTTP and SSE servers only', {
        reason: 'NOT_AN_HTTP_SERVER',
      });
    }
    if (isMachineGrant(server)) {
      throw new OperationFailure(
        'VALIDATION_ERROR',
        `server '${server.name}' gets its OAuth tokens itself (client_credentials grant): there is nothing to import`,
        {
          reason: 'CLIENT_CREDENTIALS_SERVER',
        },
      );
    }
    // Tokens are sent wherever the saved URL points: never accept tokens minted for another server.
    if (!sameUrl(input.serverUrl, server.url)) {
      throw new OperationFailure('VALIDATION_ERROR', "serverUrl does not match the saved server's URL", {
        reason: 'SERVER_URL_MISMATCH',
      });
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
      authorizationServerUrl =
        authorization.authorizationServers.find((advertised) => sameUrl(advertised, claimed)) ?? null;
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
        throw new OperationFailure(
          'VALIDATION_ERROR',
          "oauthResourceUrl is neither the saved server's URL nor the resource its metadata names",
          {
            reason: 'RESOURCE_MISMATCH',
          },
        );
      }
    }
    const expiresAt =
      input.tokens.expires_in !== undefined ? new Date(Date.now() + input.tokens.expires_in * 1000) : null;
    await this.deps.tokens.saveImported({
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

  /** Whether a connection can carry a grant: one was imported, or Runway obtains them itself (doctor asks first). */
  async hasGrant(server: SavedServer): Promise<boolean> {
    return isMachineGrant(server) || (await this.deps.tokens.health(server.id)) !== undefined;
  }

  /**
   * check-oauth: what the server needs and how healthy its grant is, without an MCP connection. Whether the server
   * advertises OAuth (`advertisesOAuth`) is learned the way calls learn it after a 401, so check-oauth's `useOAuth`
   * is true whenever calls would answer OAUTH_REQUIRED (for want of a grant, or because the server refused it).
   */
  async requirement(server: SavedServer): Promise<OAuthRequirement> {
    const serverUrl = server.transportType === 'stdio' ? null : server.url;
    const [health, advertisesOAuth] = serverUrl
      ? await Promise.all([this.deps.tokens.health(server.id), this.advertisesOAuth(server)])
      : [undefined, null];
    const machine = isMachineGrant(server);
    // A machine grant's row with no token and no error is a first request still under way: nothing to show yet.
    const shown = health && (health.hasAccessToken || health.lastError !== null);
    return {
      useOAuth: server.useOAuth || advertisesOAuth === true || health !== undefined,
      serverUrl,
      advertisesOAuth,
      tokenSource: machine ? 'client_credentials' : 'caller',
      tokens: shown
        ? {
            imported: health.source === 'caller',
            expiresAt: health.expiresAt?.getTime() ?? null,
            refreshable: machine || (health.hasRefreshToken && (health.hasClientId || server.oauthClientId !== null)),
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
  async #authorizationOf(
    server: SavedServer,
    serverUrl: string,
  ): Promise<AdvertisedAuthorization | { failure: string }> {
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
    const { tokens: store, log } = this.deps;
    const stored = await store.find(server.id);
    // Another process refreshed (or the caller re-imported) since the caller looked: use that.
    if (!stored || stored.generation !== seenGeneration || !server.url) return { tokens: stored, refreshed: false };
    let request: TokenRequest;
    if (isMachineGrant(server)) {
      request = { grant: 'client_credentials' };
    } else {
      const client = clientInformation(stored, server);
      if (!stored.refreshToken || !client) {
        await store.recordRefreshError(
          { serverId: server.id, generation: seenGeneration },
          stored.refreshToken ? 'no_client_information' : 'no_refresh_token',
        );
        return { tokens: stored, refreshed: false };
      }
      request = { grant: 'refresh_token', refreshToken: stored.refreshToken, client };
    }
    const owner = randomUUID();
    const claim = await store.claimRefresh(server.id, seenGeneration, owner, this.#leaseMs);
    if (claim !== 'claimed') {
      if (claim === 'busy') await this.#waitForOtherRefresh(server.id, seenGeneration);
      return { tokens: await store.find(server.id), refreshed: false };
    }
    const lease = { serverId: server.id, generation: seenGeneration, owner };
    try {
      const {
        tokens: fresh,
        authorizationServerUrl,
        resourceUrl,
      } = await this.#requestTokens(server, server.url, stored, request);
      const expiresAt = fresh.expires_in !== undefined ? new Date(Date.now() + fresh.expires_in * 1000) : null;
      const refreshed = {
        accessToken: fresh.access_token,
        refreshToken: fresh.refresh_token ?? null,
        tokenType: fresh.token_type,
        scope: fresh.scope ?? null,
        expiresAt,
      };
      const generation = await store.saveRefreshed(lease, refreshed, { authorizationServerUrl, resourceUrl });
      // The grant was re-imported meanwhile: the caller's new tokens win over these.
      if (generation === undefined) return { tokens: await store.find(server.id), refreshed: false };
      log.info(
        { serverId: server.id, generation },
        request.grant === 'client_credentials'
          ? 'obtained OAuth tokens (client_credentials)'
          : 'refreshed OAuth tokens',
      );
      return {
        tokens: {
          ...stored,
          ...refreshed,
          refreshToken: refreshed.refreshToken ?? stored.refreshToken,
          authorizationServerUrl: stored.authorizationServerUrl ?? authorizationServerUrl,
          resourceUrl: stored.resourceUrl ?? resourceUrl,
          generation,
          lastError: null,
        },
        refreshed: true,
      };
    } catch (error) {
      const code = error instanceof OAuthFailure ? error.code : 'refresh_failed';
      log.warn(
        { serverId: server.id, error: code },
        request.grant === 'client_credentials'
          ? 'OAuth token request (client_credentials) failed'
          : 'OAuth token refresh failed',
      );
      await store.recordRefreshError(lease, code);
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
      const state = await this.deps.tokens.refreshState(serverId);
      if (!state || state.generation !== generation || !state.leased) return;
    }
  }

  /**
   * The token request (a refresh, or client_credentials for a machine-to-machine server), at the pinned
   * authorization server (else the operator's, else the one the saved server advertises), at the token endpoint its
   * metadata names on its own origin, with the resource checked against the saved URL. Every request goes through
   * the outbound guard and shares one deadline.
   */
  async #requestTokens(
    server: SavedServer,
    serverUrl: string,
    stored: StoredTokens,
    request: TokenRequest,
  ): Promise<{ tokens: OAuthTokens; authorizationServerUrl: string; resourceUrl: string }> {
    const outbound = await Outbound.forServer(serverUrl, { signal: AbortSignal.timeout(this.deps.requestTimeoutMs) });
    try {
      let authorizationServerUrl = stored.authorizationServerUrl ?? server.authorizationServerUrl;
      let resource =
        stored.resourceUrl && resourceAllowed(stored.resourceUrl, serverUrl) ? stored.resourceUrl : undefined;
      if (!authorizationServerUrl) {
        const advertised = await discover(server, serverUrl, outbound.fetch);
        authorizationServerUrl = advertised.authorizationServers[0];
        resource ??= advertised.resource;
      }
      const found = await fetchAuthorizationServerMetadata(authorizationServerUrl, outbound.fetch);
      // RFC 8414 §3.3: metadata whose issuer is not the authorization server it was fetched for must not be used:
      // neither the refresh token nor the client's credentials go to the token endpoint it names.
      if (found?.metadata.issuer && !sameUrl(found.metadata.issuer, authorizationServerUrl))
        throw new OAuthFailure('metadata_issuer_mismatch');
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
        const metadata = found?.metadata;
        const target = resource ?? canonicalResource(serverUrl);
        const tokens =
          request.grant === 'refresh_token'
            ? await refreshAuthorization(authorizationServerUrl, {
                metadata,
                clientInformation: request.client,
                refreshToken: request.refreshToken,
                resource: target,
                fetchFn: toTokenEndpoint,
              })
            : await fetchToken(machineClient(server, authorizationServerUrl, metadata), authorizationServerUrl, {
                metadata,
                resource: target,
                fetchFn: toTokenEndpoint,
              });
        return { tokens, authorizationServerUrl, resourceUrl: target };
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
  // The metadata names another issuer than the authorization server pinned with the grant (RFC 8414 §3.3): the
  // SDK refuses to present the client's credentials there, and nothing is sent.
  if (error instanceof AuthorizationServerMismatchError || error instanceof IssuerMismatchError)
    return 'metadata_issuer_mismatch';
  if (status === undefined)
    return error instanceof Error && error.name === 'TimeoutError' ? 'token_endpoint_timeout' : 'refresh_failed';
  if (status >= 200 && status < 300) return 'token_endpoint_invalid_response';
  if (error instanceof OAuthError && TOKEN_ERROR_CODES.has(error.code)) return error.code;
  return `token_endpoint_http_${status}`;
}

const credentials = (tokens: StoredTokens): Credentials | undefined =>
  tokens.accessToken === null ? undefined : { accessToken: tokens.accessToken, generation: tokens.generation };

/** Whether the access token has expired (a token without an expiry never does). */
const hasExpired = (tokens: StoredTokens) => tokens.expiresAt !== null && tokens.expiresAt.getTime() <= Date.now();

/** Whether the access token expires inside the refresh margin (a token without an expiry never does). */
const dueForRefresh = (tokens: StoredTokens) =>
  tokens.expiresAt !== null && tokens.expiresAt.getTime() - Date.now() < REFRESH_MARGIN_MS;

/** A machine-to-machine server: Runway obtains its tokens itself, with the client_credentials grant. */
const isMachineGrant = (server: SavedServer) =>
  server.oauthGrant === 'client_credentials' && server.transportType !== 'stdio';

/**
 * The client the tokens were imported with, else the one an operator saved with the server (pre-registered). A
 * caller's own client never borrows the saved secret.
 */
function clientInformation(stored: StoredTokens, server: SavedServer): OAuthClientInformationMixed | undefined {
  if (stored.clientId)
    return { client_id: stored.clientId, ...(stored.clientSecret ? { client_secret: stored.clientSecret } : {}) };
  if (server.oauthClientId)
    return { client_id: server.oauthClientId, ...(server.clientSecret ? { client_secret: server.clientSecret } : {}) };
  return undefined;
}

const refreshable = (stored: StoredTokens, server: SavedServer) =>
  stored.refreshToken !== null && clientInformation(stored, server) !== undefined;
