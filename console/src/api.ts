import { retryAfterSeconds } from './retryAfter';
import { createStore } from './store';

/**
 * The console's one way to the API: `/api/v1` of the same origin with the signed-in key as the bearer, so every
 * rule of the API (organization scope, rate limits) applies unchanged. The key lives in this tab's sessionStorage
 * only.
 */
export const API_BASE = '/api/v1';
const KEY_ITEM = 'runway.apiKey';
/** GET replies are reused this long (the back button costs no request); any other method empties the cache. */
const CACHE_MS = 30_000;
/** 429s in a row before a request gives up (each waits Retry-After). */
const MAX_RATE_LIMIT_WAITS = 8;

/** The contract's error envelope (`{ code, message, details? }`) with the HTTP status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

function readKey(): string | null {
  try {
    return sessionStorage.getItem(KEY_ITEM);
  } catch {
    return null;
  }
}

/** The signed-in key (null: signed out). */
export const apiKey = createStore<string | null>(readKey());
/** Why the user was signed out (a 401), shown on the sign-in form. */
export const signOutReason = createStore<string | null>(null);
/** While a request waits out a 429: the notice the shell shows. */
export const rateLimitNotice = createStore<string | null>(null);

export function signIn(key: string): void {
  sessionStorage.setItem(KEY_ITEM, key);
  signOutReason.set(null);
  cache.clear();
  apiKey.set(key);
}

export function signOut(reason: string | null = null): void {
  sessionStorage.removeItem(KEY_ITEM);
  cache.clear();
  signOutReason.set(reason);
  apiKey.set(null);
}

export interface ApiOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  signal?: AbortSignal;
  /** another key than the signed-in one (the sign-in form checks a key before keeping it) */
  key?: string;
  /** skip the GET cache (a reload the user asked for) */
  fresh?: boolean;
}

const cache = new Map<string, { at: number; reply: Promise<unknown> }>();

/** Forgets cached GET replies (all of them, or those whose path starts with `prefix`). */
export function invalidate(prefix = ''): void {
  for (const path of cache.keys()) if (path.startsWith(prefix)) cache.delete(path);
}

/** `path` is relative to /api/v1 (`/projects`); JSON in, JSON out; failures throw ApiError. */
export function api<T>(path: string, options: ApiOptions = {}): Promise<T> {
  const method = options.method ?? 'GET';
  if (method !== 'GET') {
    cache.clear();
    return send<T>(path, method, options);
  }
  if (options.key) return send<T>(path, method, options);
  const hit = cache.get(path);
  if (hit && !options.fresh && Date.now() - hit.at < CACHE_MS) return hit.reply as Promise<T>;
  // The request is shared by every view asking for it meanwhile, so it must not die with one caller's signal.
  const reply = send<T>(path, method, { ...options, signal: undefined });
  cache.set(path, { at: Date.now(), reply });
  reply.catch(() => {
    if (cache.get(path)?.reply === reply) cache.delete(path);
  });
  return abortable(reply, options.signal);
}

function abortable<T>(reply: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return reply;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason ?? new DOMException('aborted', 'AbortError'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    reply.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

async function send<T>(path: string, method: string, options: ApiOptions): Promise<T> {
  const key = options.key ?? apiKey.get();
  const headers: Record<string, string> = { accept: 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  for (let waits = 0; ; waits++) {
    const response = await fetch(API_BASE + path, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
      credentials: 'omit',
      cache: 'no-store',
    });
    if (response.status === 429 && waits < MAX_RATE_LIMIT_WAITS) {
      const seconds = retryAfterSeconds(response.headers.get('retry-after'));
      await waitOut(seconds, options.signal);
      continue;
    }
    const text = await response.text();
    const body = parse(text);
    if (response.ok) return body as T;
    const envelope = (body && typeof body === 'object' ? body : {}) as {
      code?: string;
      message?: string;
      details?: Record<string, unknown>;
    };
    const error = new ApiError(
      response.status,
      envelope.code ?? `HTTP_${response.status}`,
      envelope.message ?? (text.slice(0, 300) || response.statusText),
      envelope.details,
    );
    // The signed-in key stopped working (revoked, expired): back to the sign-in form, saying why.
    if (response.status === 401 && !options.key && key)
      signOut(`The API did not accept the key (${error.message}). Sign in again.`);
    throw error;
  }
}

function parse(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

let waiting = 0;

async function waitOut(seconds: number, signal: AbortSignal | undefined): Promise<void> {
  waiting++;
  rateLimitNotice.set(`The API asks us to wait ${seconds} s (rate limit); retrying…`);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, seconds * 1000);
      signal?.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          reject(signal.reason ?? new DOMException('aborted', 'AbortError'));
        },
        { once: true },
      );
    });
  } finally {
    if (--waiting === 0) rateLimitNotice.set(null);
  }
}

/** Keeps a reply that was fetched another way (the sign-in check) as the cached GET of `path`. */
export function remember(path: string, reply: unknown): void {
  cache.set(path, { at: Date.now(), reply: Promise.resolve(reply) });
}
