/**
 * Idempotency keys (issue 33 item 3): what the API's Idempotency-Key mechanism (api/idempotency.ts) needs from storage
 * (db/idempotencyKeys.ts). A key is scoped by the caller and the route; the first request claims it before doing any
 * work, and every later one with the same scope finds the claim (under way) or its reply (done).
 */
export interface IdempotencyScope {
  organizationId: string;
  /** the API key the request came with */
  apiKeyId: string;
  /** method and path template, e.g. `POST /projects/:projectId/eval-runs` */
  route: string;
  /** the Idempotency-Key header's value */
  key: string;
}

/** A reply kept for replay: its status and its JSON text as sent (null when it was larger than the bound kept). */
export interface KeptReply {
  status: number;
  body: string | null;
  /** the headers a replay repeats (Location, Retry-After) */
  headers: Record<string, string>;
}

export type ClaimOutcome =
  /** this request holds the key: it does the work, then completes (or releases) the claim with `token` */
  | { kind: 'claimed'; token: string }
  /** another request holds the key and has not answered yet */
  | { kind: 'inProgress'; fingerprint: string }
  /** the key was used and answered: `reply` is that answer */
  | { kind: 'done'; fingerprint: string; reply: KeptReply };

export interface ClaimTerms {
  /** what the request is (api/idempotency.ts requestFingerprint): the same key with another one is refused */
  fingerprint: string;
  /** how long a claim holds without renewal (a crashed process's claim is taken over after it) */
  leaseMs: number;
  /** how long the key and its reply are kept */
  ttlMs: number;
}

export interface IdempotencyKeyStore {
  /**
   * Claims the key in one statement (racing claims get one winner), taking over an expired row or a claim whose lease
   * passed; else says what holds it. Undefined when the row vanished between the two reads (a claim released): claim again.
   */
  claim(scope: IdempotencyScope, terms: ClaimTerms): Promise<ClaimOutcome | undefined>;
  /** extends a claim's lease; false when the claim is no longer this token's */
  renew(scope: IdempotencyScope, token: string, leaseMs: number): Promise<boolean>;
  /** keeps the reply for replay; false when the claim is no longer this token's */
  complete(scope: IdempotencyScope, token: string, reply: KeptReply): Promise<boolean>;
  /** gives the key up (the request failed on the service side): the next request with it does the work */
  release(scope: IdempotencyScope, token: string): Promise<void>;
}
