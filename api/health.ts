import { Router } from 'express';
import type { Client } from '@temporalio/client';
import type { Sql } from '../db/connection.js';
import type { Config } from '../runtime/config.js';
import { validationError } from './errors.js';

/** How long each Temporal check may take: a probe gets an answer even when Temporal does not. */
const TEMPORAL_CHECK_MS = 5_000;
/** Temporal's enums (temporal.api.enums.v1): TaskQueueType WORKFLOW and ACTIVITY, TaskQueueKind NORMAL. */
const TASK_QUEUE_TYPES = [1, 2];
const TASK_QUEUE_KIND_NORMAL = 1;

/**
 * Liveness and readiness for load balancers and orchestrators (outside /api/v1, no key).
 *
 * Ready means both shared stores answer: Postgres and the Temporal frontend. `checks.worker` says whether a worker
 * polls the task queue (Temporal's DescribeTaskQueue pollers, workflow and activity tasks): `ok`, `no_worker`, or
 * `unreachable` when Temporal could not say. It gates readiness only for a caller that asks, `?require=worker`:
 * an API without a worker serves every read and queues new runs, and an orchestrator that waited for a worker
 * before routing to the API could wait forever where the workers start after it (docker-compose.yml) or roll out
 * separately. `npm start` asks, before it prints its address. docs/OPERATIONS.md, "Health and readiness".
 */
export function healthRoutes({ sql, temporal, config }: { sql: Sql; temporal: Client; config: Config }): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  const withinDeadline = <T>(call: () => Promise<T>) =>
    temporal.connection.withDeadline(Date.now() + TEMPORAL_CHECK_MS, call);
  /** Whether some worker polls the task queue for workflow and for activity tasks. */
  const workerPolls = async (): Promise<'ok' | 'no_worker'> => {
    const replies = await Promise.all(
      TASK_QUEUE_TYPES.map((taskQueueType) =>
        withinDeadline(() =>
          temporal.workflowService.describeTaskQueue({
            namespace: config.TEMPORAL_NAMESPACE,
            taskQueue: { name: config.TEMPORAL_TASK_QUEUE, kind: TASK_QUEUE_KIND_NORMAL },
            taskQueueType,
          }),
        ),
      ),
    );
    return replies.every((reply) => (reply.pollers ?? []).length > 0) ? 'ok' : 'no_worker';
  };

  router.get('/readyz', async (req, res) => {
    const require = req.query.require;
    if (require !== undefined && require !== 'worker')
      throw validationError('query.require: the one check readiness can also require is `worker`', {
        reason: 'UNKNOWN_READINESS_CHECK',
      });
    const [postgres, temporalCheck, worker] = await Promise.allSettled([
      sql`SELECT 1`,
      withinDeadline(() => temporal.workflowService.getSystemInfo({})),
      workerPolls(),
    ]);
    const checks = {
      postgres: postgres.status === 'fulfilled' ? 'ok' : 'unreachable',
      temporal: temporalCheck.status === 'fulfilled' ? 'ok' : 'unreachable',
      worker: worker.status === 'fulfilled' ? worker.value : 'unreachable',
    };
    const gating = require === 'worker' ? checks : { postgres: checks.postgres, temporal: checks.temporal };
    const ready = Object.values(gating).every((c) => c === 'ok');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks });
  });
  return router;
}
