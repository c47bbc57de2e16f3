import type { RequestHandler } from 'express';
import { admitApiKey, keyStanding } from '../db/accounts.js';
import type { Sql } from '../db/connection.js';
import { ApiError } from './errors.js';
import { bucketSettings, enforceRateLimit, type AddressLimit, type RateLimitSettings } from './rateLimit.js';
import type { Principal } from '../domain/principal.js';

const bearer = /^Bearer[ ]+(\S+)\s*$/i;

/** What to do about a key that cannot act: a self-hosted Runway's keys come from its operator CLI. */
const NEW_KEY = 'an operator creates a new one with `npm run -s admin -- key create`';

export function bearerToken(header: string | undefined): string | undefined {
  return header ? bearer.exec(header)?.[1] : undefined;
}

/** API keys cannot manage API keys: the key-management surface always refuses an sk_ bearer. */
export const keyManagementSurface: RequestHandler = (req) => {
  if (bearerToken(req.get('authorization'))?.startsWith('sk_')) {
    throw new ApiError(
      'FORBIDDEN',
      'API keys cannot manage API keys; an operator creates, lists and revokes them with `npm run -s admin -- key create` (`key list`, `key revoke`)',
    );
  }
  throw new ApiError('UNAUTHORIZED', 'the key-management surface needs a signed-in user session, not an API key');
};

/**
 * Resolves `Authorization: Bearer sk_...` to the principal the key acts as and takes a token from the key's
 * rate-limit bucket, in one database round trip. Nothing is cached, so revocation is immediate. A request
 * without a usable key takes its token from its address's bucket instead (in the same round trip when it had to
 * look the key up), so it is answered 401 until that bucket is empty, then 429.
 */
export function authenticate(sql: Sql, limits: RateLimitSettings, addressLimit: AddressLimit): RequestHandler {
  const bucket = bucketSettings(limits);
  return async (req, res, next) => {
    const token = bearerToken(req.get('authorization'));
    if (!token || !token.startsWith('sk_') || token.length > 200) {
      await addressLimit.take(req, res);
      throw new ApiError(
        'UNAUTHORIZED',
        token ? 'invalid API key' : 'missing bearer API key: send Authorization: Bearer sk_...',
      );
    }
    const found = await admitApiKey(sql, token, { key: bucket, address: addressLimit.bucketOf(req) });
    if (found.status === 'valid') {
      res.locals.principal = found.principal;
      enforceRateLimit(res, found.principal, found.rateLimit, limits);
      return next();
    }
    addressLimit.enforce(res, found.addressLimit);
    throw refusal(found.status);
  };
}

/** The 401 of a key that cannot act, by why. */
function refusal(status: 'unknown' | 'revoked' | 'orphaned'): ApiError {
  switch (status) {
    case 'orphaned':
      return new ApiError(
        'UNAUTHORIZED',
        `this API key is no longer bound to an organization (the organization is gone, or the key's user is no longer a member of it); ${NEW_KEY}`,
        { reason: 'ORPHANED_KEY' },
      );
    case 'revoked':
      return new ApiError('UNAUTHORIZED', `this API key has been revoked; ${NEW_KEY}`, { reason: 'KEY_REVOKED' });
    default:
      return new ApiError('UNAUTHORIZED', 'invalid API key');
  }
}

/**
 * For what outlives the request that admitted a key (an events stream): the 401 the key would get now, or
 * undefined while it may still act. Revocation and leaving the organization reach open streams this way.
 */
export async function keyRefusal(sql: Sql, principal: Pick<Principal, 'keyId'>): Promise<ApiError | undefined> {
  const standing = await keyStanding(sql, principal.keyId);
  return standing === 'valid' ? undefined : refusal(standing);
}
