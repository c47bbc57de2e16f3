import { Router, type RequestHandler } from 'express';
import { ApiError } from './errors.js';
import type { MountedRoute } from './openapi.js';

/** The methods an Allow header lists, in this order; HEAD comes with GET (Express answers it from the GET route). */
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * 405 for a path the app serves, asked with a method it does not serve there (`GET .../servers/{id}/tools`, which is
 * a POST): the contract's envelope, code METHOD_NOT_ALLOWED, and an `Allow` header naming the methods, instead of
 * "no route", which reads as a wrong path. Mounted after every route, before the 404 of unknown routes, so a request
 * reaches it only when nothing served it: behind /api/v1 and /sdk/v1, only with a usable key (the key is checked
 * first, as for every other answer there).
 *
 * It matches with a router of its own, built once from the app's mounted routes (`routes`, read on the first
 * request, when everything is mounted), so paths match exactly as Express matched them. Every pattern that matches
 * adds its methods (`.../cases/generate` is both a POST route and a `.../cases/:caseId` path).
 */
export function methodNotAllowed(routes: () => MountedRoute[]): RequestHandler {
  let matcher: Router | undefined;
  return (req, res, next) => {
    matcher ??= buildMatcher(routes());
    matcher(req, res, next);
  };
}

function buildMatcher(routes: MountedRoute[]): Router {
  const methodsByPath = new Map<string, Set<string>>();
  for (const route of routes) {
    // `router.all` routes and mounted middleware serve every method of their path: no request there ends up here.
    if (route.kind !== 'route' || route.method === 'ALL') continue;
    const methods = methodsByPath.get(route.path) ?? new Set<string>();
    methods.add(route.method);
    if (route.method === 'GET') methods.add('HEAD');
    methodsByPath.set(route.path, methods);
  }
  const matcher = Router();
  for (const [path, methods] of methodsByPath) {
    matcher.all(path, (_req, res, next) => {
      const allowed: Set<string> = (res.locals.allowedMethods ??= new Set<string>());
      for (const method of methods) allowed.add(method);
      next();
    });
  }
  matcher.use((req, res, next) => {
    const allowed = res.locals.allowedMethods as Set<string> | undefined;
    if (!allowed || allowed.size === 0 || allowed.has(req.method)) return next();
    const methods = METHOD_ORDER.filter((m) => allowed.has(m));
    throw new ApiError(
      'METHOD_NOT_ALLOWED',
      `${req.method} is not allowed here: ${req.originalUrl.split('?')[0]} answers ${methods.join(', ')}`,
      { method: req.method, allowed: methods },
      { Allow: methods.join(', ') },
    );
  });
  return matcher;
}
