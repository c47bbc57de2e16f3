import type { RequestHandler } from 'express';

/**
 * The one owner of the headers of the pages this server serves to browsers (the console, the API reference): each
 * page names its Content-Security-Policy, built here from the directives it needs beyond the strict base, and
 * every reply under it (the page, its assets, a 404) carries the policy with nosniff and no referrer.
 */

/** What every page gets: nothing unless allowed below, and nothing that could frame, re-base or post the page. */
const BASE: Record<string, string> = {
  'default-src': "'none'",
  'script-src': "'self'",
  'style-src': "'self'",
  'img-src': "'self'",
  'connect-src': "'self'",
  'font-src': "'self'",
  'base-uri': "'none'",
  'form-action': "'none'",
  'frame-ancestors': "'none'",
};

/** The base policy, with some directives given other sources (e.g. `{ 'img-src': "'self' data:" }`). */
export function contentSecurityPolicy(overrides: Record<string, string> = {}): string {
  return Object.entries({ ...BASE, ...overrides })
    .map(([directive, sources]) => `${directive} ${sources}`)
    .join('; ');
}

/** Middleware: the page's policy and the other headers every page reply carries. */
export function pageSecurityHeaders(csp: string): RequestHandler {
  return (_req, res, next) => {
    res.set({ 'Content-Security-Policy': csp, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' });
    next();
  };
}
