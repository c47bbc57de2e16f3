import type { Request, Response } from 'express';
import ipaddr from 'ipaddr.js';
import type { Db } from '../db/connection.js';
import { takeToken, type BucketSettings, type TakeResult } from '../db/rateLimits.js';
import { ApiError } from './errors.js';
import type { Principal } from '../domain/principal.js';

export interface RateLimitSettings {
  perMinute: number;
  burst: number;
  /** called on every rejection (metrics) */
  onReject?: (principal: Principal) => void;
}

export const bucketSettings = (settings: Pick<RateLimitSettings, 'perMinute' | 'burst'>): BucketSettings => ({
  ratePerSecond: settings.perMinute / 60,
  burst: settings.burst,
});

/** RateLimit headers always; whether the bucket had a token is the caller's to act on. */
function announce(res: Response, taken: TakeResult, settings: Pick<RateLimitSettings, 'perMinute'>): void {
  res.set('RateLimit-Limit', String(settings.perMinute));
  res.set('RateLimit-Remaining', String(taken.remaining));
}

/**
 * Applies the per-key bucket's verdict (taken in Postgres, so the limit holds across every API process):
 * RateLimit headers always, and 429 RATE_LIMITED with Retry-After in whole seconds when the bucket is empty.
 */
export function enforceRateLimit(
  res: Response,
  principal: Principal,
  taken: TakeResult,
  settings: RateLimitSettings,
): void {
  announce(res, taken, settings);
  if (taken.allowed) return;
  settings.onReject?.(principal);
  throw new ApiError(
    'RATE_LIMITED',
    `rate limit of ${settings.perMinute} requests per minute (burst ${settings.burst}) exceeded; retry after ${taken.retryAfterSeconds}s`,
    { retryAfterSeconds: taken.retryAfterSeconds },
    { 'Retry-After': String(taken.retryAfterSeconds) },
  );
}

/**
 * The bucket of the address a request comes from: `req.ip`, the peer's address or, behind a proxy the operator
 * trusts (TRUST_PROXY), the client the proxy names. IPv6 clients are grouped by /64, what one host or subscriber
 * is normally given, so that rotating addresses within it does not escape the limit.
 */
export function addressBucketName(req: Pick<Request, 'ip' | 'socket'>): string {
  const ip = req.ip ?? req.socket.remoteAddress;
  if (!ip || !ipaddr.isValid(ip)) return 'addr:unknown';
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return `addr:${address.toString()}`;
  const { parts } = address as ipaddr.IPv6;
  return `addr:${new ipaddr.IPv6([...parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
}

export interface AddressLimitSettings {
  perMinute: number;
  burst: number;
  /** called on every rejection (metrics) */
  onReject?: () => void;
}

/**
 * The limit on work done without a usable key, per client address: requests with a missing, malformed, unknown,
 * revoked or orphaned key, and uploads to single-use URLs, all from one bucket per address. The buckets sit next
 * to the keys' in Postgres, so the limit holds across API processes. A request with a usable key never touches
 * its address's bucket: a client guessing keys cannot lock out the tenants behind the same address.
 */
export class AddressLimit {
  readonly bucket: BucketSettings;

  constructor(
    private readonly sql: Db,
    readonly settings: AddressLimitSettings,
  ) {
    this.bucket = bucketSettings(settings);
  }

  /** The request's bucket, for a statement that takes its token along with other work (admitApiKey). */
  bucketOf(req: Pick<Request, 'ip' | 'socket'>): { name: string; settings: BucketSettings } {
    return { name: addressBucketName(req), settings: this.bucket };
  }

  /** Takes a token from the request's address bucket: 429 RATE_LIMITED when none is left. One statement. */
  async take(req: Request, res: Response): Promise<void> {
    this.enforce(res, await takeToken(this.sql, addressBucketName(req), this.bucket));
  }

  /** Applies a verdict taken elsewhere: RateLimit headers, and 429 with Retry-After when the bucket was empty. */
  enforce(res: Response, taken: TakeResult): void {
    announce(res, taken, this.settings);
    if (taken.allowed) return;
    this.settings.onReject?.();
    throw new ApiError(
      'RATE_LIMITED',
      `too many requests without a valid API key from this address (bad keys and upload URLs count): limit ${this.settings.perMinute} per minute, burst ${this.settings.burst}; retry after ${taken.retryAfterSeconds}s`,
      { reason: 'ADDRESS_RATE_LIMIT', retryAfterSeconds: taken.retryAfterSeconds },
      { 'Retry-After': String(taken.retryAfterSeconds) },
    );
  }
}
