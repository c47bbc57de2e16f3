import { randomUUID } from 'node:crypto';
import express, { type Express, type RequestHandler } from 'express';
import type { Client } from '@temporalio/client';
import type { Config } from '../activities/config.js';
import type { Logger } from '../activities/logger.js';
import type { McpOperations } from '../activities/mcp/index.js';
import type { Sql } from '../db/connection.js';
import { SecretBox } from '../db/secretBox.js';
import { parseHostedModels, type HostedModelCatalog } from '../activities/models/catalog.js';
import { authenticate, keyManagementSurface } from './auth.js';
import { jsonObjectBody } from './body.js';
import { CursorCodec } from './cursor.js';
import { RunLauncher } from './runLauncher.js';
import { errorHandler, unknownRoute } from './errors.js';
import { healthRoutes } from './health.js';
import { rateLimit } from './rateLimit.js';
import { toHandler, type RouteSpec } from './route.js';
import { allRoutes } from './routes/index.js';

export interface AppDeps {
  sql: Sql;
  temporal: Client;
  config: Config;
  log: Logger;
  /** operations on saved MCP servers (activities/mcp), called directly by the server-operation routes */
  mcp: McpOperations;
}

/** What route modules receive: the app's dependencies plus the services built from them once. */
export interface RouteDeps extends AppDeps {
  cursors: CursorCodec;
  box: SecretBox;
  runs: RunLauncher;
  catalog: HostedModelCatalog;
}

export interface App {
  express: Express;
  routes: RouteSpec[];
}

export function createApp(deps: AppDeps): App {
  const routeDeps: RouteDeps = {
    ...deps,
    cursors: new CursorCodec(deps.config.RUNWAY_ENCRYPTION_KEY),
    box: SecretBox.fromBase64(deps.config.RUNWAY_ENCRYPTION_KEY),
    runs: new RunLauncher(deps.temporal, deps.config.TEMPORAL_TASK_QUEUE),
    catalog: parseHostedModels(deps.config.HOSTED_MODELS),
  };
  const routes = allRoutes(routeDeps);
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(requestLog(deps.log));

  const v1 = express.Router();
  v1.all(['/api-keys', '/api-keys/*rest'], keyManagementSurface);
  for (const route of routes.filter((r) => r.auth === false)) v1[route.method](route.path, toHandler(route));
  v1.use(authenticate(deps.sql));
  v1.use(rateLimit(deps.sql, { perMinute: deps.config.RATE_LIMIT_PER_MINUTE, burst: deps.config.RATE_LIMIT_BURST }));
  const bodies = jsonObjectBody();
  for (const route of routes.filter((r) => r.auth !== false)) {
    v1[route.method](route.path, ...(route.method === 'get' ? [] : bodies), toHandler(route));
  }

  app.use(healthRoutes(deps));
  app.use('/api/v1', v1);
  app.use(unknownRoute);
  app.use(errorHandler(deps.log));
  return { express: app, routes };
}

function requestLog(log: Logger): RequestHandler {
  return (req, res, next) => {
    const requestId = req.get('x-request-id')?.slice(0, 100) || randomUUID();
    res.locals.requestId = requestId;
    res.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      log.info({ requestId, method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 100) / 100 }, 'request');
    });
    next();
  };
}
