import express, { type RequestHandler } from 'express';
import { validationError } from './errors.js';

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** Cheap pre-check on the raw text; containsNul then tells an escaped backslash from a real NUL. */
const nulPattern = /\\u0000|\0/;

/** Postgres text and jsonb cannot hold NUL; a body carrying one is refused at the edge instead of failing later. */
function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([key, inner]) => key.includes('\0') || containsNul(inner));
}

/**
 * Reads every body as JSON whatever its content type: an empty body is `{}`, anything that is not a JSON
 * object is a 400. Oversized bodies are a 400 too (reason BODY_TOO_LARGE), rejected while streaming.
 */
export function jsonObjectBody(limit = DEFAULT_BODY_LIMIT): RequestHandler[] {
  const raw = express.raw({ type: () => true, limit });
  const parse: RequestHandler = (req, _res, next) => {
    const buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const text = buffer.toString('utf8').trim();
    if (text === '') {
      req.body = {};
      return next();
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw validationError('request body is not valid JSON');
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw validationError('request body must be a JSON object');
    }
    if (nulPattern.test(text) && containsNul(value)) {
      throw validationError('request body contains a NUL character (\\u0000), which cannot be stored');
    }
    req.body = value;
    next();
  };
  return [raw, parse];
}
