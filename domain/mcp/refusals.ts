import { extractWWWAuthenticateParams } from '@modelcontextprotocol/client';
import type { FetchLike } from '@modelcontextprotocol/client';

/** What a server's `WWW-Authenticate: Bearer ...` challenge says (RFC 6750 §3, RFC 9728 §5.1). */
export interface BearerChallenge {
  error?: string;
  errorDescription?: string;
  scope?: string;
  resourceMetadataUrl?: string;
}

/**
 * A server answered one of our MCP POSTs with an HTTP error. Thrown from the transport's fetch (the SDK passes it
 * through to the request that failed), so failures.ts sees the status, whether the request belonged to a session,
 * the server's challenge and its own words, instead of the SDK's message with the whole body in it.
 */
export class HttpRefusal extends Error {
  constructor(
    readonly status: number,
    /** the request carried an Mcp-Session-Id: only then can a 404 (or a 400 naming the session) mean it expired */
    readonly withSession: boolean,
    readonly challenge: BearerChallenge | undefined,
    /** what the server said, bounded and without control characters; undefined when it said nothing usable */
    readonly serverWords: string | undefined,
    /** the JSON-RPC error the body held, when it held one (e.g. -32022 refusing the protocol revision) */
    readonly mcpError?: JsonRpcError,
  ) {
    super(`HTTP ${status}${serverWords ? `: ${serverWords}` : ''}`);
    this.name = 'HttpRefusal';
  }
}

/** How much of an error body is read to find the server's words (the rest is not read). */
const BODY_LIMIT = 16 * 1024;
/** How much of the server's words an error message keeps. */
const WORDS_LIMIT = 200;

/** A JSON-RPC error object, as a server's error answer may carry it. */
export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * Wraps the transport's fetch: a POST answered 4xx/5xx becomes an HttpRefusal. Redirects and GETs pass through, and
 * so do two error answers that are the protocol's own words, for the SDK to read: the answer to the
 * `server/discover` probe (how it tells the eras apart; 401 and 403 excepted, which stay ours), and, on the 2026
 * wire, an HTTP 400 carrying a JSON-RPC error for the request, which that revision delivers in-band.
 */
export function refusalsAsErrors(fetch: FetchLike): FetchLike {
  return async (url, init) => {
    const response = await fetch(url, init);
    if ((init?.method ?? 'GET').toUpperCase() !== 'POST' || response.status < 400) return response;
    const headers = new Headers(init?.headers);
    const probe = requestMethod(init?.body) === 'server/discover' && response.status !== 401 && response.status !== 403;
    const modern = /^2026-/.test(headers.get('mcp-protocol-version') ?? '');
    const challenge = bearerChallenge(response);
    const text = await readBounded(response);
    const mcpError = jsonRpcErrorOf(text);
    if (probe || (modern && response.status === 400 && mcpError))
      return new Response(text, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    const words = challenge?.errorDescription
      ? serverWords(challenge.errorDescription)
      : serverWords(wordsOfBody(text, response.headers.get('content-type')));
    throw new HttpRefusal(response.status, headers.has('mcp-session-id'), challenge, words, mcpError);
  };
}

/** The JSON-RPC method of a request body (a string for the SDK's POSTs), if it is one request. */
function requestMethod(body: unknown): string | undefined {
  if (typeof body !== 'string') return undefined;
  try {
    const method = (JSON.parse(body) as { method?: unknown } | null)?.method;
    return typeof method === 'string' ? method : undefined;
  } catch {
    return undefined;
  }
}

/** The error of a JSON-RPC error response body, if the body is one. */
function jsonRpcErrorOf(text: string): JsonRpcError | undefined {
  if (!/^\s*\{/.test(text)) return undefined;
  try {
    const error = (JSON.parse(text) as { error?: unknown } | null)?.error as Record<string, unknown> | undefined;
    if (typeof error?.code !== 'number' || !Number.isInteger(error.code)) return undefined;
    return {
      code: error.code,
      message: typeof error.message === 'string' ? error.message : '',
      ...(error.data !== undefined ? { data: error.data } : {}),
    };
  } catch {
    return undefined;
  }
}

/** What an error answer says: its challenge's error_description, else the message of its body (consumed). */
export async function wordsOf(response: Response): Promise<string | undefined> {
  const described = bearerChallenge(response)?.errorDescription;
  if (described) {
    await response.body?.cancel().catch(() => {});
    return serverWords(described);
  }
  return serverWords(wordsOfBody(await readBounded(response), response.headers.get('content-type')));
}

export function bearerChallenge(response: Response): BearerChallenge | undefined {
  const header = response.headers.get('www-authenticate');
  if (!header || !/^\s*bearer\b/i.test(header)) return undefined;
  const { error, scope, resourceMetadataUrl } = extractWWWAuthenticateParams(response);
  const description = /error_description=(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/.exec(header);
  const errorDescription = description ? (description[1] ?? description[2]).replace(/\\(.)/g, '$1') : undefined;
  return { error, errorDescription, scope, resourceMetadataUrl: resourceMetadataUrl?.href };
}

/**
 * What a server said, fit for an error message: control and formatting characters (terminal escapes, bidi
 * overrides) become spaces, runs of spaces one, and the whole is cut to a short excerpt.
 */
export function serverWords(text: string | undefined): string | undefined {
  const clean = text
    ?.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!clean) return undefined;
  return clean.length > WORDS_LIMIT ? `${clean.slice(0, WORDS_LIMIT - 1)}…` : clean;
}

/** The message of a JSON error body (OAuth, JSON-RPC, or a plain `message`), else the text itself. */
function wordsOfBody(text: string, contentType: string | null): string | undefined {
  if (!text) return undefined;
  if (!/json/i.test(contentType ?? '') && !/^\s*[{[]/.test(text)) return text;
  try {
    const body = JSON.parse(text) as Record<string, unknown> | null;
    const candidates = [
      body?.error_description,
      (body?.error as { message?: unknown } | null)?.message,
      body?.message,
      body?.error,
      body?.detail,
    ];
    return candidates.find((c): c is string => typeof c === 'string' && c.trim() !== '') ?? text;
  } catch {
    return text;
  }
}

/** The start of a response's body, at most `limit` characters; the rest is never read (the body is released). */
export async function readBounded(response: Response, limit = BODY_LIMIT): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (text.length < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // a body cut short still says something
  } finally {
    await reader.cancel().catch(() => {});
  }
  return text.slice(0, limit);
}
