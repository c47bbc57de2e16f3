import { createHash } from 'node:crypto';
import type { Request } from 'express';
import type { IdempotencyKeyStore, IdempotencyScope, KeptReply } from '../domain/ports/idempotencyKeys.js';
import { canonicalJson } from '../domain/canonicalJson.js';
import { ApiError, toApiError, toEnvelope, validationError } from './errors.js';

/**
 * `Idempotency-Key` on the creating POSTs (issue 33 item 3; docs/API.md "Idempotency-Key"). A route opts in with
 * `idempotent: true` (api/route.ts); toHandler then runs it through `Idempotency.run`:
 *
 * - the key is scoped by the caller (organization and API key) and the route (method and path template);
 * - the first request claims the key (one INSERT ... ON CONFLICT, db/idempotencyKeys.ts) before any work, and its
 *   reply is kept for 24 hours: 2xx, and 4xx (Stripe's choice: the same request would be refused the same way, e.g.
 *   a 404 for a suite that does not exist), but not 429 (a concurrent-run cap says "later": a retry must be able to
 *   start the run then) nor 5xx or an exception (the service failed, not the request): those give the key up;
 * - a retry with the same key and the same request (fingerprint) gets that reply, status and JSON text, with
 *   `Idempotent-Replayed: true`; with another request, 409 CONFLICT (details.reason IDEMPOTENCY_KEY_REUSED);
 * - a duplicate that arrives while the first is under way waits for its reply (up to `waitMs`), then answers
 *   409 CONFLICT (details.reason IDEMPOTENCY_KEY_IN_PROGRESS) with Retry-After; nothing is ever done twice while the
 *   first holds the key. Its claim has a lease, renewed while it runs: a crashed process's claim passes after it.
 *
 * A request refused before it ran (a malformed body, query or path: 400) claims nothing: fixed, it may reuse the key.
 */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** set (to `true`) on a reply that is the kept reply of an earlier request with the same key */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** 1 to 255 printable ASCII characters (space to tilde) */
const KEY_PATTERN = /^[\x20-\x7E]{1,255}$/;

export interface IdempotencyOptions {
  /** a claim's lease without renewal: how long a crashed process's claim blocks its key */
  leaseMs: number;
  /** how long a duplicate waits for the first request's reply before 409 IDEMPOTENCY_KEY_IN_PROGRESS */
  waitMs: number;
  /** how long a key and its reply are kept */
  ttlMs: number;
  /** the largest reply text kept for replay (bytes); a larger one is kept as its status only */
  maxStoredBytes: number;
  /** expired keys deleted after each new claim (db/idempotencyKeys.ts purgeExpiredIdempotencyKeys) */
  purgeBatch: number;
}

export const DEFAULT_IDEMPOTENCY_OPTIONS: IdempotencyOptions = {
  leaseMs: 30_000,
  waitMs: 5_000,
  ttlMs: 24 * 60 * 60 * 1000,
  maxStoredBytes: 2 * 1024 * 1024,
  purgeBatch: 20,
};

/** The header's value, when the request sent one; a 400 VALIDATION_ERROR (INVALID_IDEMPOTENCY_KEY) when it is unfit. */
export function idempotencyKeyOf(req: Pick<Request, 'headers'>): string | undefined {
  const value = req.headers['idempotency-key'];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !KEY_PATTERN.test(value))
    throw validationError(
      `the ${IDEMPOTENCY_KEY_HEADER} header must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters (a UUID is a good one)`,
      { reason: 'INVALID_IDEMPOTENCY_KEY', header: IDEMPOTENCY_KEY_HEADER, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH },
    );
  return value;
}

/** What the request asks: sha256 (hex) of its path parameters, query and JSON body, canonical. */
export function requestFingerprint(request: { params: unknown; query: unknown; body: unknown }): string {
  return createHash('sha256')
    .update(canonicalJson({ params: request.params ?? {}, query: request.query ?? {}, body: request.body ?? {} }))
    .digest('hex');
}

/** Whether a reply with this status is kept for replay (else the key is given up: see the comment at the top). */
export const keepsReply = (status: number): boolean => status < 500 && status !== 429;

/** What a route's work answered, before it is sent. */
export interface Reply {
  status: number;
  body: unknown;
  /** headers the work set that a replay must repeat (REPLAYED_HEADERS) */
  headers?: Record<string, string>;
}

/** The reply headers a replay repeats: where the created resource is, and how long to wait. */
export const REPLAYED_HEADERS = ['Location', 'Retry-After'] as const;

/** What to send: the work's own reply (`replayed` false) or a kept one, as JSON text. */
export interface IdempotentReply {
  status: number;
  /** a kept reply's headers (REPLAYED_HEADERS) */
  headers?: Record<string, string>;
  /** the reply's JSON text; undefined for a first reply, which toHandler sends itself */
  text?: string;
  body?: unknown;
  replayed: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class Idempotency {
  private readonly options: IdempotencyOptions;

  constructor(
    private readonly store: IdempotencyKeyStore,
    options: Partial<IdempotencyOptions> = {},
    /** deletes expired keys, at most `limit` of them (purgeExpiredIdempotencyKeys) */
    private readonly purge?: (now: Date, limit: number) => Promise<number>,
  ) {
    this.options = { ...DEFAULT_IDEMPOTENCY_OPTIONS, ...options };
  }

  /**
   * Does `work` once per key and request: this request's reply when it claimed the key, else the kept reply of the
   * one that did (waiting for it while it runs). Throws the contract's 409s for a reused key or one still under way.
   */
  async run(scope: IdempotencyScope, fingerprint: string, work: () => Promise<Reply>): Promise<IdempotentReply> {
    const { leaseMs, ttlMs, waitMs } = this.options;
    const deadline = Date.now() + waitMs;
    for (let poll = 25; ; poll = Math.min(poll * 2, 250)) {
      const outcome = await this.store.claim(scope, { fingerprint, leaseMs, ttlMs });
      if (outcome?.kind === 'claimed') return await this.first(scope, outcome.token, work);
      if (outcome && outcome.fingerprint !== fingerprint) throw reused(scope);
      if (outcome?.kind === 'done') return replay(outcome.reply);
      if (outcome === undefined) continue; // released between the two reads: claim it now
      if (Date.now() >= deadline) throw inProgress(scope, leaseMs);
      await sleep(Math.min(poll, Math.max(1, deadline - Date.now())));
    }
  }

  private async first(scope: IdempotencyScope, token: string, work: () => Promise<Reply>): Promise<IdempotentReply> {
    const { leaseMs, purgeBatch } = this.options;
    // Keeps the claim while the work runs, however long it takes; a failed renewal is retried at the next tick.
    const renewal = setInterval(() => void this.store.renew(scope, token, leaseMs).catch(() => {}), leaseMs / 3);
    renewal.unref();
    try {
      let reply: Reply;
      try {
        reply = await work();
      } catch (error) {
        const apiError = toApiError(error);
        if (keepsReply(apiError.status))
          await this.store.complete(scope, token, this.kept(apiError.status, toEnvelope(apiError), apiError.headers));
        else await this.store.release(scope, token);
        throw error;
      }
      if (keepsReply(reply.status))
        await this.store.complete(scope, token, this.kept(reply.status, reply.body, reply.headers));
      else await this.store.release(scope, token);
      return { status: reply.status, body: reply.body, replayed: false };
    } finally {
      clearInterval(renewal);
      // Expired keys go a few at a time, off the reply's path (and the retention job deletes them in batches too).
      if (this.purge) void this.purge(new Date(), purgeBatch).catch(() => 0);
    }
  }

  private kept(status: number, body: unknown, headers: Record<string, string> = {}): KeptReply {
    const text = JSON.stringify(body) ?? 'null';
    const repeated = Object.entries(headers).filter(
      ([name, value]) => REPLAYED_HEADERS.some((h) => h.toLowerCase() === name.toLowerCase()) && value.length <= 2000,
    );
    return {
      status,
      body: Buffer.byteLength(text) <= this.options.maxStoredBytes ? text : null,
      headers: Object.fromEntries(repeated),
    };
  }
}

function replay(reply: KeptReply): IdempotentReply {
  if (reply.body === null)
    throw new ApiError(
      'CONFLICT',
      `a request with this ${IDEMPOTENCY_KEY_HEADER} was answered ${reply.status}, with a reply too large to keep for replay; read the resource it created instead`,
      { reason: 'IDEMPOTENT_REPLY_NOT_KEPT', status: reply.status },
    );
  return { status: reply.status, text: reply.body, headers: reply.headers, replayed: true };
}

function reused(scope: IdempotencyScope): ApiError {
  return new ApiError(
    'CONFLICT',
    `this ${IDEMPOTENCY_KEY_HEADER} was already used with a different request (path parameters, query or body) on ${scope.route}; send a new key for a new request`,
    { reason: 'IDEMPOTENCY_KEY_REUSED', header: IDEMPOTENCY_KEY_HEADER },
  );
}

function inProgress(scope: IdempotencyScope, leaseMs: number): ApiError {
  return new ApiError(
    'CONFLICT',
    `a request with this ${IDEMPOTENCY_KEY_HEADER} on ${scope.route} is still being processed; retry after Retry-After seconds to get its reply`,
    { reason: 'IDEMPOTENCY_KEY_IN_PROGRESS', header: IDEMPOTENCY_KEY_HEADER, leaseSeconds: Math.ceil(leaseMs / 1000) },
    { 'Retry-After': '1' },
  );
}
