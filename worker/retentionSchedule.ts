import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptionsStartWorkflowAction,
  type ScheduleUpdateOptions,
} from '@temporalio/client';
import type { Logger } from '../runtime/logger.js';
import { RETENTION_SCHEDULE_ID, RETENTION_WORKFLOW_ID } from '../workflows/definitions.js';
import type { retention } from '../workflows/retention.js';

/** A call to Temporal that takes longer gives up (the worker starts regardless; its next start tries again). */
const TEMPORAL_DEADLINE_MS = 10_000;

type RetentionScheduleOptions = ScheduleUpdateOptions<ScheduleOptionsStartWorkflowAction<typeof retention>>;

export interface RetentionScheduleSettings {
  taskQueue: string;
  /** RETENTION_INTERVAL_MINUTES */
  intervalMinutes: number;
}

function scheduleOptions(settings: RetentionScheduleSettings): RetentionScheduleOptions {
  const every = settings.intervalMinutes * 60_000;
  return {
    spec: { intervals: [{ every }] },
    action: {
      type: 'startWorkflow',
      workflowType: 'retention',
      workflowId: RETENTION_WORKFLOW_ID,
      taskQueue: settings.taskQueue,
      args: [{}],
    },
    // a pass still going when the next is due: the next is skipped; a pass missed while Temporal was down runs once
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: every },
    state: {
      paused: false,
      note: `Runway's retention pass, every ${settings.intervalMinutes} minutes (RETENTION_INTERVAL_MINUTES); see docs/OPERATIONS.md#retention.`,
    },
  };
}

/**
 * At worker start: the deployment's retention schedule (`runway-retention`) exists in Temporal and runs every
 * RETENTION_INTERVAL_MINUTES; one that exists gets this worker's interval and task queue (a pause set in Web UI is
 * kept). Idempotent, and safe when several workers start at once. Whether it was created.
 */
export async function ensureRetentionSchedule(temporal: Client, settings: RetentionScheduleSettings): Promise<boolean> {
  return await temporal.withDeadline(Date.now() + TEMPORAL_DEADLINE_MS, async () => {
    const handle = temporal.schedule.getHandle(RETENTION_SCHEDULE_ID);
    const options = scheduleOptions(settings);
    try {
      await handle.update((previous) => ({ ...options, state: { ...options.state, paused: previous.state.paused } }));
      return false;
    } catch (error) {
      if (!(error instanceof ScheduleNotFoundError)) throw error;
    }
    try {
      await temporal.schedule.create({ scheduleId: RETENTION_SCHEDULE_ID, ...options });
      return true;
    } catch (error) {
      // another worker created it first
      if (error instanceof ScheduleAlreadyRunning) return false;
      throw error;
    }
  });
}

/** ensureRetentionSchedule in the background of a worker's start: a failure is logged, never fatal. */
export function startRetentionSchedule(temporal: Client, settings: RetentionScheduleSettings, log: Logger): void {
  ensureRetentionSchedule(temporal, settings).then(
    (created) => {
      if (created)
        log.info({ intervalMinutes: settings.intervalMinutes }, 'created the retention schedule in Temporal');
    },
    (error: unknown) => {
      log.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'could not create or update the retention schedule in Temporal; the next worker start tries again',
      );
    },
  );
}
