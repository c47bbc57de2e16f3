import {
  buildDiscoveryUrls,
  checkResourceAllowed,
  LATEST_PROTOCOL_VERSION,
  resourceUrlFromServerUrl,
  type AuthorizationServerMetadata,
  type FetchLike,
  type OAuthProtectedResourceMetadata,
} from '@modelcontextprotocol/client';
import {
  OAuthMetadataSchema,
  OAuthProtectedResourceMetadataSchema,
  OpenIdProviderDiscoveryMetadataSchema,
} from '@modelcontextprotocol/core';
import { OutboundError } from './outbound.js';

/**
 * OAuth discovery for a saved server, as the MCP authorization spec describes it: RFC 9728 protected-resource
 * metadata (the WWW-Authenticate pointer first, then the well-known URLs), then RFC 8414 / OpenID Connect metadata
 * of the authorization server it names. Used by doctor's probe, by import (to check what a caller claims) and by
 * refresh. Every request goes through the caller's `fetch` (an Outbound's: the address and redirect rules).
 */

/** The stages of discovery and refresh; they prefix the failure codes. */
export type OAuthStage = 'resource_metadata' | 'metadata' | 'token_endpoint';

/**
 * A step of discovery or refresh failed. `code` is what check-oauth shows and the log says: our own fixed words plus
 * at most an HTTP status (`metadata_unreachable`, `token_endpoint_http_403`), never what the remote side sent.
 */
export class OAuthFailure extends Error {
  constructor(readonly code: string) {
    super(code);
    this.name = 'OAuthFailure';
  }
}

/** The fixed code for a request of `stage` that failed before an HTTP answer we could use. */
export function failureCode(stage: OAuthStage, error: unknown): string {
  if (error instanceof OAuthFailure) return error.code;
  if (error instanceof OutboundError) return `${stage}_${error.kind}`;
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
    return `${stage}_timeout`;
  return `${stage}_invalid_response`;
}

export interface Published<T> {
  /** the URL that answered */
  url: string;
  metadata: T;
}

const METADATA_HEADERS = { 'MCP-Protocol-Version': LATEST_PROTOCOL_VERSION, Accept: 'application/json' };

/**
 * GETs each candidate in turn. The first 2xx is the document; a 4xx means "not published here", so the next is
 * tried; anything else fails the stage. Undefined when every candidate answered 4xx.
 */
async function firstPublished<T>(
  stage: OAuthStage,
  fetch: FetchLike,
  candidates: { url: URL; parse: (json: unknown) => T }[],
): Promise<Published<T> | undefined> {
  for (const { url, parse } of candidates) {
    try {
      const response = await fetch(url, { headers: METADATA_HEADERS });
      if (response.ok) return { url: url.href, metadata: parse(await response.json()) };
      await response.body?.cancel();
      if (response.status < 400 || response.status >= 500) throw new OAuthFailure(`${stage}_http_${response.status}`);
    } catch (error) {
      throw new OAuthFailure(failureCode(stage, error));
    }
  }
  return undefined;
}

/** RFC 9728 protected-resource metadata: at the WWW-Authenticate pointer, else path-aware, else root well-known. */
export async function fetchResourceMetadata(
  serverUrl: string,
  pointer: string | undefined,
  fetch: FetchLike,
): Promise<Published<OAuthProtectedResourceMetadata> | undefined> {
  const server = new URL(serverUrl);
  const urls: URL[] = [];
  if (pointer) urls.push(new URL(pointer));
  const path = server.pathname.replace(/\/+$/, '');
  if (path) urls.push(new URL(`/.well-known/oauth-protected-resource${path}${server.search}`, server));
  urls.push(new URL('/.well-known/oauth-protected-resource', server));
  const unique = urls.filter((url, i) => urls.findIndex((other) => other.href === url.href) === i);
  return await firstPublished(
    'resource_metadata',
    fetch,
    unique.map((url) => ({ url, parse: (json) => OAuthProtectedResourceMetadataSchema.parse(json) })),
  );
}

/** RFC 8414, then OpenID Connect discovery, at the URLs the SDK derives from the authorization server's URL. */
export async function fetchAuthorizationServerMetadata(
  authorizationServerUrl: string,
  fetch: FetchLike,
): Promise<Published<AuthorizationServerMetadata> | undefined> {
  const candidates = buildDiscoveryUrls(authorizationServerUrl).map(({ url, type }) => ({
    url,
    parse: (json: unknown): AuthorizationServerMetadata =>
      type === 'oauth' ? OAuthMetadataSchema.parse(json) : OpenIdProviderDiscoveryMetadataSchema.parse(json),
  }));
  return await firstPublished('metadata', fetch, candidates);
}

export interface AdvertisedAuthorization {
  /** in the server's order; the server's own origin when it publishes no protected-resource metadata (2025-03-26) */
  authorizationServers: string[];
  /** the metadata's `resource`, already checked against the saved server's URL */
  resource?: string;
  /** where the protected-resource metadata answered */
  resourceMetadataUrl?: string;
}

/** The authorization servers a saved server advertises for itself. */
export async function advertisedAuthorization(
  serverUrl: string,
  pointer: string | undefined,
  fetch: FetchLike,
): Promise<AdvertisedAuthorization> {
  const origin = new URL('/', serverUrl).href;
  const found = await fetchResourceMetadata(serverUrl, pointer, fetch);
  if (!found) return { authorizationServers: [origin] };
  // RFC 9728 §3.3: metadata about another resource is not about this server.
  if (
    !checkResourceAllowed({
      requestedResource: resourceUrlFromServerUrl(serverUrl),
      configuredResource: found.metadata.resource,
    })
  ) {
    throw new OAuthFailure('resource_mismatch');
  }
  const servers = (found.metadata.authorization_servers ?? []).filter(isHttpUrl);
  return {
    authorizationServers: servers.length ? servers : [origin],
    resource: found.metadata.resource,
    resourceMetadataUrl: found.url,
  };
}

/**
 * The token endpoint the authorization server's metadata names, only on that server's own origin. Without any
 * metadata, the 2025-03-26 default (`/token`) applies only when the authorization server is the saved server's own
 * origin; anything else is refused before a request is sent.
 */
export function tokenEndpointFor(
  authorizationServerUrl: string,
  metadata: AuthorizationServerMetadata | undefined,
  serverUrl: string,
): URL {
  const issuer = new URL(authorizationServerUrl);
  if (!metadata) {
    if (issuer.origin === new URL(serverUrl).origin && issuer.pathname === '/') return new URL('/token', issuer);
    throw new OAuthFailure('metadata_not_found');
  }
  let endpoint: URL;
  try {
    endpoint = new URL(metadata.token_endpoint);
  } catch {
    throw new OAuthFailure('metadata_invalid_response');
  }
  if (endpoint.origin !== issuer.origin) throw new OAuthFailure('token_endpoint_cross_origin');
  return endpoint;
}

/** The RFC 8707 resource for a saved server's URL: scheme and host lower case, default port dropped, no fragment. */
export const canonicalResource = (serverUrl: string): string => resourceUrlFromServerUrl(serverUrl).href;

/** Whether a resource indicator may be sent for the saved server (the same URL, or a prefix of it on its origin). */
export function resourceAllowed(resource: string, serverUrl: string): boolean {
  try {
    return checkResourceAllowed({
      requestedResource: resourceUrlFromServerUrl(serverUrl),
      configuredResource: resource,
    });
  } catch {
    return false;
  }
}

/** Two spellings of one URL: parsed, without fragment, trailing slashes of the path ignored. */
export function sameUrl(a: string, b: string): boolean {
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

function isHttpUrl(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}
