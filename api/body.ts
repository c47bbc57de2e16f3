import express, { type RequestHandler } from 'express';
import { validationError } from './errors.js';
import { refuseUnfitJson } from './jsonLimits.js';

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * Reads every body as JSON whatever its content type: an empty body is `{}`, anything that is not a JSON
 * object is a 400. Oversized bodies are a 400 too (reason BODY_TOO_LARGE), rejected while streaming, and so is a
 * body too deep, with too many values, or with text Postgres cannot store (jsonLimits.ts).
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
    refuseUnfitJson(value, 'body');
    req.body = value;
    next();
  };
  return [raw, parse];
}
