import type { RequestHandler } from 'express';
import type { Principal } from '../db/accounts.js';
import type { Sql } from '../db/connection.js';
import { takeToken } from '../db/rateLimits.js';
import { ApiError } from './errors.js';

export interface RateLimitSettings {
  perMinute: number;
  burst: number;
  /** called on every rejection (metrics) */
  onReject?: (principal: Principal) => void;
}

/** Per-key token bucket held in Postgres, so the limit holds across every API process. */
export function rateLimit(sql: Sql, settings: RateLimitSettings): RequestHandler {
  const bucket = { ratePerSecond: settings.perMinute / 60, burst: settings.burst };
  return async (_req, res, next) => {
    const principal = res.locals.principal as Principal;
    const taken = await takeToken(sql, principal.keyId, bucket);
    res.set('RateLimit-Limit', String(settings.perMinute));
    res.set('RateLimit-Remaining', String(taken.remaining));
    if (taken.allowed) return next();
    settings.onReject?.(principal);
    throw new ApiError(
      'RATE_LIMITED',
      `rate limit of ${settings.perMinute} requests per minute (burst ${settings.burst}) exceeded; retry after ${taken.retryAfterSeconds}s`,
      { retryAfterSeconds: taken.retryAfterSeconds },
      { 'Retry-After': String(taken.retryAfterSeconds) },
    );
  };
}
