import { proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';

const { ping } = proxyActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

/** A round trip through Temporal, a worker and Postgres; used by readiness checks and the stack test. */
export async function healthCheck(): Promise<{ databaseTime: string; worker: string }> {
  return await ping();
}
