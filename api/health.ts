import { Router } from 'express';
import type { AppDeps } from './app.js';

/**
 * Liveness and readiness for load balancers and orchestrators (outside /api/v1, no key).
 * Ready means both shared stores answer: Postgres and the Temporal frontend.
 */
export function healthRoutes({ sql, temporal }: Pick<AppDeps, 'sql' | 'temporal'>): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const [postgres, temporalCheck] = await Promise.allSettled([
      sql`SELECT 1`,
      temporal.workflowService.getSystemInfo({}),
    ]);
    const checks = {
      postgres: postgres.status === 'fulfilled' ? 'ok' : 'unreachable',
      temporal: temporalCheck.status === 'fulfilled' ? 'ok' : 'unreachable',
    };
    const ready = Object.values(checks).every((c) => c === 'ok');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks });
  });
  return router;
}
