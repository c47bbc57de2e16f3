import type { Response } from 'express';
import type { Principal } from '../db/accounts.js';
import type { BucketSettings, TakeResult } from '../db/rateLimits.js';
import { ApiError } from './errors.js';

export interface RateLimitSettings {
  perMinute: number;
  burst: number;
  /** called on every rejection (metrics) */
  onReject?: (principal: Principal) => void;
}

export const bucketSettings = (settings: RateLimitSettings): BucketSettings => ({ ratePerSecond: settings.perMinute / 60, burst: settings.burst });

/**
 * Applies the per-key bucket's verdict (taken in Postgres, so the limit holds across every API process):
 * RateLimit headers always, and 429 RATE_LIMITED with Retry-After in whole seconds when the bucket is empty.
 */
export function enforceRateLimit(res: Response, principal: Principal, taken: TakeResult, settings: RateLimitSettings): void {
  res.set('RateLimit-Limit', String(settings.perMinute));
  res.set('RateLimit-Remaining', String(taken.remaining));
  if (taken.allowed) return;
  settings.onReject?.(principal);
  throw new ApiError(
    'RATE_LIMITED',
    `rate limit of ${settings.perMinute} requests per minute (burst ${settings.burst}) exceeded; retry after ${taken.retryAfterSeconds}s`,
    { retryAfterSeconds: taken.retryAfterSeconds },
    { 'Retry-After': String(taken.retryAfterSeconds) },
  );
}
