import { Router, type RequestHandler } from 'express';
import { jsonObjectBody } from '../body.js';
import type { Idempotency } from '../idempotency.js';
import { toHandler, type ReplyCheck, type RouteSpec } from '../route.js';

const INGEST_PREFIX = '/projects/:projectId/eval-ingest/';

/** `/projects/:projectId/eval-ingest/runs/start` -> `/evals/runs/start`: the MCPJam SDK reporter's paths. */
const sdkAliasPath = (path: string) =>
  path.startsWith(INGEST_PREFIX) ? `/evals/${path.slice(INGEST_PREFIX.length)}` : undefined;

// The SDK names no project: it reports to the default project of the key's organization.
const defaultProject: RequestHandler = (req, _res, next) => {
  req.params.projectId = 'default';
  next();
};

/**
 * `/sdk/v1`, for the MCPJam SDK reporter pointed at Runway (`MCPJAM_BASE_URL`): the ingest handlers themselves,
 * behind `admit` (the same key check and rate limit as /api/v1). That client reads only an `error` string from
 * a failed reply, so every error here carries one next to the envelope.
 */
export function sdkRouter(
  routes: RouteSpec[],
  admit: RequestHandler,
  checkReply?: ReplyCheck,
  idempotency?: Idempotency,
): Router {
  const router = Router();
  router.use((_req, res, next) => {
    res.locals.errorAsString = true;
    next();
  });
  // The SDK probes this, without a key, before sending optional wire fields. evalsHostConfig 0: it sends no host
  // configuration (which Runway would not store).
  router.get('/info', (_req, res) => {
    res.json({ capabilities: { evalsHostConfig: 0 } });
  });
  router.use(admit);
  for (const route of routes) {
    const alias = sdkAliasPath(route.path);
    if (alias && route.auth !== false)
      router[route.method](
        alias,
        defaultProject,
        ...jsonObjectBody(route.bodyLimit),
        toHandler(route, checkReply, idempotency),
      );
  }
  return router;
}
