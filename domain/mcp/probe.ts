import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { extractWWWAuthenticateParams } from '@modelcontextprotocol/client';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import type { FetchLike } from '@modelcontextprotocol/client';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/client';
import { CLIENT_INFO } from './connection.js';
import { MODERN_REVISION } from './protocolEras.js';
import { advertisedAuthorization, fetchAuthorizationServerMetadata, OAuthFailure } from './discovery.js';
import { Outbound, OutboundError } from './outbound.js';
import { readBounded, wordsOf } from './refusals.js';
import { requestHeaders, workingDirectory } from './transports.js';
import type { SavedServer } from '../catalog/server.js';

/** How much of a server/discover answer the doctor's probe reads. */
const DISCOVER_LIMIT = 64 * 1024;

/** What the doctor learns about OAuth before connecting (contract-notes: doctor `oauth`). */
export interface OAuthDiscovery {
  required: boolean;
  wwwAuthenticate?: string;
  resourceMetadataUrl?: string;
  authorizationServerMetadataUrl?: string;
  registrationStrategies: ('dcr' | 'cimd' | 'preregistered')[];
}

export interface ProbeResult {
  ok: boolean;
  detail: string;
  /** the MCP transport found: `stdio` once its command is found, else the one that answered at the URL */
  transport: 'stdio' | 'streamable-http' | 'sse' | null;
  /** the HTTP status the URL answered with; null for stdio, or when nothing answered */
  httpStatus: number | null;
  /** null for stdio servers */
  oauth: OAuthDiscovery | null;
}

/**
 * stdio: the saved command exists and is executable, found the way spawn will find it (the merged PATH, or relative
 * to the server's working directory), and a working directory an operator saved exists (the server's own under
 * `dataDir` is created at its first start).
 */
export async function probeStdio(server: SavedServer, dataDir: string): Promise<ProbeResult> {
  const cwd = workingDirectory(server, dataDir);
  if (
    server.cwd !== null &&
    !(await stat(cwd).then(
      (found) => found.isDirectory(),
      () => false,
    ))
  ) {
    return {
      ok: false,
      detail: `the working directory ${cwd} does not exist`,
      transport: null,
      httpStatus: null,
      oauth: null,
    };
  }
  const command = server.command ?? '';
  const path = { ...getDefaultEnvironment(), ...server.env }.PATH ?? '';
  const candidates =
    isAbsolute(command) || command.includes('/')
      ? [resolve(cwd, command)]
      : path
          .split(delimiter)
          .filter(Boolean)
          .map((dir) => join(dir, command));
  for (const candidate of candidates) {
    try {
      await access(candidate, constants.X_OK);
      return {
        ok: true,
        detail: `command found: ${candidate}; working directory ${cwd}`,
        transport: 'stdio',
        httpStatus: null,
        oauth: null,
      };
    } catch {
      // keep looking along PATH
    }
  }
  return {
    ok: false,
    detail: `command not found or not executable: ${command}`,
    transport: null,
    httpStatus: null,
    oauth: null,
  };
}

/**
 * HTTP: is the URL reachable, which MCP transport answers there, and does it want OAuth. Sent without the
 * OAuth token on purpose: the point is to learn whether the server requires one. Every request goes through the
 * outbound guard: a redirect to another origin is not followed, so the saved headers stay with the saved server.
 */
export async function probeHttp(server: SavedServer, timeoutMs: number): Promise<ProbeResult> {
  const oauth: OAuthDiscovery = { required: server.useOAuth, registrationStrategies: [] };
  const outbound = await Outbound.forServer(server.url ?? '');
  const fetch: FetchLike = (url, init) => outbound.fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  try {
    let answer: ProbeAnswer;
    try {
      answer = await knock(server, fetch);
    } catch (error) {
      const why =
        error instanceof OutboundError && error.kind !== 'unreachable' && error.kind !== 'timeout'
          ? 'refused'
          : 'unreachable';
      return { ok: false, detail: `${why}: ${describeFetchError(error)}`, transport: null, httpStatus: null, oauth };
    }
    const answered = { transport: answer.transport ?? null, httpStatus: answer.status };
    if (answer.status === 401) {
      oauth.wwwAuthenticate = answer.wwwAuthenticate;
      oauth.resourceMetadataUrl = answer.resourceMetadataUrl;
    }
    // A 401 means OAuth only from a server that says so (as calls decide it: operations.ts): a challenge pointing
    // at its metadata, metadata at the well-known URLs, or the saved setting. Else it wants other credentials.
    const advertised = oauth.required || answer.status === 401 ? await discoverOAuth(server, oauth, fetch) : false;
    if (answer.status === 401) oauth.required ||= advertised || answer.resourceMetadataUrl !== undefined;
    if (answer.status === 401 && oauth.required)
      return { ok: true, detail: 'reachable; the server requires OAuth (HTTP 401)', ...answered, oauth };
    if (answer.status === 401) {
      return {
        ok: false,
        detail: `reachable; the server refused the request's credentials (HTTP 401)${answer.words ? `: ${answer.words}` : ''}`,
        ...answered,
        oauth,
      };
    }
    if (answer.transport) {
      return {
        ok: true,
        detail: answer.modern
          ? `reachable; speaks streamable HTTP, protocol 2026-07-28 (it answered server/discover, HTTP ${answer.status})`
          : answer.modernOnly
            ? 'reachable; speaks streamable HTTP, protocol 2026-07-28 only (it refused the 2025 initialize with -32022)'
            : `reachable; speaks ${answer.transport === 'sse' ? 'HTTP+SSE (2024-11-05)' : 'streamable HTTP'} (HTTP ${answer.status})`,
        ...answered,
        oauth,
      };
    }
    return {
      ok: false,
      detail: `reachable, but no MCP transport answered (HTTP ${answer.status})`,
      ...answered,
      oauth,
    };
  } finally {
    await outbound.close();
  }
}

/**
 * The resource_metadata pointer of the server's 401 challenge (RFC 9728 §5.1), when it gives one: what refresh and
 * import start discovery from. Any failure here only means the well-known URLs are tried instead.
 */
export async function resourceMetadataPointer(server: SavedServer, fetch: FetchLike): Promise<string | undefined> {
  try {
    const answer = await knock(server, fetch);
    return answer.status === 401 ? answer.resourceMetadataUrl : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the server's answer to an unauthenticated GET of its URL (saved headers, no token, no session; the body
 * is not read) is a 401 whose challenge points at protected-resource metadata: how a server that publishes its
 * metadata nowhere else advertises OAuth. Not an MCP request.
 */
export async function challengesForOAuth(server: SavedServer, fetch: FetchLike): Promise<boolean> {
  const answer = await openSseStream(server.url ?? '', requestHeaders(server), fetch);
  return answer.status === 401 && answer.resourceMetadataUrl !== undefined;
}

interface ProbeAnswer {
  status: number;
  transport?: 'streamable-http' | 'sse';
  wwwAuthenticate?: string;
  resourceMetadataUrl?: string;
  /** what a server that refused the request said */
  words?: string;
  /** it refused the 2025 initialize for its protocol revision: a server of the 2026 revision only */
  modernOnly?: boolean;
  /** it answered server/discover: a server of the 2026 revision */
  modern?: boolean;
}

/** An unauthenticated request in the server's transport (the other one if that says nothing useful). */
async function knock(server: SavedServer, fetch: FetchLike): Promise<ProbeAnswer> {
  const url = server.url ?? '';
  const headers = requestHeaders(server);
  const order = server.transportType === 'sse' ? [openSseStream, postInitialize] : [postHandshake, openSseStream];
  const answer = await order[0](url, headers, fetch);
  return answer.transport || answer.status === 401 ? answer : await order[1](url, headers, fetch);
}

/**
 * The handshake of either era: server/discover as a 2026 client sends it (its headers and `_meta`), then, from a
 * server that does not answer it as a 2026 server would, the 2025 initialize.
 */
async function postHandshake(url: string, headers: Record<string, string>, fetch: FetchLike): Promise<ProbeAnswer> {
  const discovered = await postDiscover(url, headers, fetch);
  return discovered.transport || discovered.status === 401 ? discovered : await postInitialize(url, headers, fetch);
}

async function postDiscover(url: string, headers: Record<string, string>, fetch: FetchLike): Promise<ProbeAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      ...headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN_REVISION,
      'mcp-method': 'server/discover',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'server/discover',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { ...CLIENT_INFO, name: 'runway-doctor' },
        },
      },
    }),
  });
  if (response.status === 401) return await describe(response, undefined);
  // Read bounded: what a server sends the doctor is never held whole (an advertisement fits well within this).
  const text = response.ok ? await readBounded(response, DISCOVER_LIMIT) : (await response.body?.cancel(), '');
  return answersDiscover(text)
    ? { status: response.status, transport: 'streamable-http', modern: true }
    : { status: response.status };
}

/** Whether a body (JSON, or the first event of an event stream) is a server/discover result listing versions. */
function answersDiscover(text: string): boolean {
  const json = /^\s*\{/.test(text) ? text : (/^data:\s*(.*)$/m.exec(text)?.[1] ?? '');
  try {
    const versions = (JSON.parse(json) as { result?: { supportedVersions?: unknown } } | null)?.result
      ?.supportedVersions;
    return Array.isArray(versions) && versions.length > 0;
  } catch {
    return false;
  }
}

async function postInitialize(url: string, headers: Record<string, string>, fetch: FetchLike): Promise<ProbeAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { ...CLIENT_INFO, name: 'runway-doctor' },
      },
    }),
  });
  // A server of the 2026 revision only refuses the 2025 handshake with 400 and -32022: it does speak MCP here.
  const answer: ProbeAnswer =
    response.status === 400
      ? (await refusesVersion(response))
        ? { status: 400, transport: 'streamable-http', modernOnly: true }
        : { status: 400 }
      : await describe(response, response.ok ? 'streamable-http' : undefined);
  // Don't leave the probe's session behind on the server.
  const session = response.headers.get('mcp-session-id');
  if (session)
    await fetch(url, { method: 'DELETE', headers: { ...headers, 'mcp-session-id': session } }).then(
      (r) => r.body?.cancel(),
      () => {},
    );
  return answer;
}

async function openSseStream(url: string, headers: Record<string, string>, fetch: FetchLike): Promise<ProbeAnswer> {
  const response = await fetch(url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream' } });
  const isSse = response.ok && (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
  return await describe(response, isSse ? 'sse' : undefined);
}

/** Whether an error answer's body is JSON-RPC's -32022 Unsupported protocol version (its body is consumed). */
async function refusesVersion(response: Response): Promise<boolean> {
  const text = await readBounded(response);
  try {
    return (JSON.parse(text) as { error?: { code?: unknown } } | null)?.error?.code === -32022;
  } catch {
    return false;
  }
}

/** Status and challenge of an answer; its body is consumed (read for the server's words when it refused). */
async function describe(response: Response, transport: ProbeAnswer['transport']): Promise<ProbeAnswer> {
  const answer: ProbeAnswer = { status: response.status, transport };
  if (response.status === 401) {
    answer.wwwAuthenticate = response.headers.get('www-authenticate') ?? undefined;
    answer.resourceMetadataUrl = extractWWWAuthenticateParams(response).resourceMetadataUrl?.href;
    answer.words = await wordsOf(response).catch(() => undefined);
  } else {
    await response.body?.cancel();
  }
  return answer;
}

/**
 * RFC 9728 protected-resource metadata, then RFC 8414 / OIDC authorization-server metadata (discovery.ts). True
 * when the server publishes either: it advertises OAuth.
 */
async function discoverOAuth(server: SavedServer, oauth: OAuthDiscovery, fetch: FetchLike): Promise<boolean> {
  const serverUrl = server.url ?? '';
  // No usable RFC 9728 document: the MCP server's origin is the authorization server (2025-03-26 behaviour).
  let authorizationServer = new URL('/', serverUrl).href;
  let published = false;
  try {
    const advertised = await advertisedAuthorization(serverUrl, oauth.resourceMetadataUrl, fetch);
    published = advertised.resourceMetadataUrl !== undefined;
    oauth.resourceMetadataUrl = advertised.resourceMetadataUrl ?? oauth.resourceMetadataUrl;
    authorizationServer = advertised.authorizationServers[0];
  } catch (error) {
    // reported as found so far; the origin is still worth a look. Metadata about another resource is still OAuth.
    published = error instanceof OAuthFailure && error.code === 'resource_mismatch';
  }
  const found = await fetchAuthorizationServerMetadata(authorizationServer, fetch).catch(() => undefined);
  if (!found) return published;
  const { metadata } = found;
  oauth.authorizationServerMetadataUrl = found.url;
  if (metadata.registration_endpoint) oauth.registrationStrategies.push('dcr');
  if ((metadata as { client_id_metadata_document_supported?: boolean }).client_id_metadata_document_supported)
    oauth.registrationStrategies.push('cimd');
  // A client registered out of band always works with a standard authorization server.
  oauth.registrationStrategies.push('preregistered');
  return true;
}

function describeFetchError(error: unknown): string {
  if (error instanceof OutboundError) return error.message;
  if (error instanceof Error && error.name === 'TimeoutError') return 'no answer in time';
  const cause = (error as { cause?: { code?: string } } | null)?.cause?.code;
  return cause ?? (error instanceof Error ? error.message : String(error));
}
