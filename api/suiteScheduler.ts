import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptionsStartWorkflowAction,
  type ScheduleUpdateOptions,
} from '@temporalio/client';
import type { Logger } from '../runtime/logger.js';
import type { Db } from '../db/connection.js';
import type { SuiteSchedules, SuiteScheduleTarget } from '../domain/ports/suiteSchedules.js';
import { listEnabledSchedules } from '../db/suiteSchedules.js';
import { runSearchAttributes, scheduledSuiteRunWorkflowId, suiteScheduleId } from '../workflows/definitions.js';
import type { scheduledSuiteRun } from '../workflows/scheduledSuiteRun.js';

export type { SuiteScheduleTarget } from '../domain/ports/suiteSchedules.js';

/** A call to Temporal that takes longer fails the request, rather than holding it (and the suite's row lock). */
const TEMPORAL_DEADLINE_MS = 10_000;
/**
 * How late a due time missed while Temporal was down is still run. At most one missed run is made up for (the
 * overlap policy skips the rest), never a backlog after a long outage.
 */
const MIN_CATCHUP_MS = 60_000;

type SuiteScheduleOptions = ScheduleUpdateOptions<ScheduleOptionsStartWorkflowAction<typeof scheduledSuiteRun>>;

/**
 * One Temporal Schedule per suite (id `suite-schedule:<suiteId>`), shown on the Schedules page of Temporal Web UI
 * with a memo and a note naming the suite and its project. Each due time starts the scheduledSuiteRun workflow,
 * which creates the run as POST /eval-runs does and runs it. Overlap policy SKIP: a due time while the suite's
 * previous scheduled run is still going is skipped by Temporal (counted in the schedule's info), so a suite never
 * runs against itself; the organization's run cap decides the rest. The domain's SuiteSchedules port.
 */
export class SuiteScheduler implements SuiteSchedules {
  constructor(
    private readonly temporal: Client,
    private readonly options: { taskQueue: string; minuteMs: number },
  ) {}

  /**
   * Makes the suite's schedule what the target says: enabled creates it or updates its interval and unpauses it;
   * disabled pauses it, keeping it (a suite never given an interval gets none).
   */
  async apply(target: SuiteScheduleTarget): Promise<void> {
    await this.temporal.withDeadline(Date.now() + TEMPORAL_DEADLINE_MS, async () => {
      const handle = this.temporal.schedule.getHandle(suiteScheduleId(target.suiteId));
      if (target.intervalMinutes === null) {
        if (target.enabled) throw new Error('an enabled schedule needs intervalMinutes');
        await handle.pause(this.note(target)).catch(ignoreMissing);
        return;
      }
      const options = this.scheduleOptions(target, target.intervalMinutes);
      try {
        await handle.update(() => options);
      } catch (error) {
        ignoreMissing(error);
        // created paused when disabled: the interval given is kept where Web UI shows it, ready to be enabled
        await this.create(target, target.intervalMinutes);
      }
    });
  }

  private async create(target: SuiteScheduleTarget, intervalMinutes: number): Promise<void> {
    await this.temporal.schedule.create({
      scheduleId: suiteScheduleId(target.suiteId),
      ...this.scheduleOptions(target, intervalMinutes),
      memo: {
        suiteId: target.suiteId,
        suiteName: target.suiteName,
        projectId: target.projectId,
        organizationId: target.organizationId,
      },
    });
  }

  /**
   * Creates the enabled suite's schedule when Temporal does not have it (a new cluster or namespace, a lost
   * history, a schedule deleted in Web UI); one that exists is left as it is, paused or not. Whether it was created.
   */
  async restore(target: SuiteScheduleTarget & { enabled: true; intervalMinutes: number }): Promise<boolean> {
    return await this.temporal.withDeadline(Date.now() + TEMPORAL_DEADLINE_MS, async () => {
      try {
        await this.temporal.schedule.getHandle(suiteScheduleId(target.suiteId)).describe();
        return false;
      } catch (error) {
        ignoreMissing(error);
      }
      try {
        await this.create(target, target.intervalMinutes);
        return true;
      } catch (error) {
        // another API process restored it first
        if (error instanceof ScheduleAlreadyRunning) return false;
        throw error;
      }
    });
  }

  /** Deletes the suite's schedule, if it has one (the suite DELETE route calls this). */
  async remove(suiteId: string): Promise<void> {
    await this.temporal.withDeadline(Date.now() + TEMPORAL_DEADLINE_MS, async () => {
      await this.temporal.schedule.getHandle(suiteScheduleId(suiteId)).delete().catch(ignoreMissing);
    });
  }

  private scheduleOptions(target: SuiteScheduleTarget, intervalMinutes: number): SuiteScheduleOptions {
    const every = intervalMinutes * this.options.minuteMs;
    const labels = {
      organizationId: target.organizationId,
      projectId: target.projectId,
      suiteId: target.suiteId,
      source: 'schedule',
    };
    return {
      spec: { intervals: [{ every }] },
      action: {
        type: 'startWorkflow',
        workflowType: 'scheduledSuiteRun',
        workflowId: scheduledSuiteRunWorkflowId(target.suiteId),
        taskQueue: this.options.taskQueue,
        args: [{ suiteId: target.suiteId }],
        typedSearchAttributes: runSearchAttributes(labels),
        memo: { suiteId: target.suiteId, suiteName: target.suiteName, projectId: target.projectId },
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: Math.max(every, MIN_CATCHUP_MS) },
      state: { paused: !target.enabled, note: this.note(target) },
      typedSearchAttributes: runSearchAttributes(labels),
    };
  }

  private note(target: SuiteScheduleTarget): string {
    const suite = `suite "${target.suiteName}" (${target.suiteId}) of project ${target.projectId}`;
    if (!target.enabled)
      return `Paused through the Runway API: ${suite}. Enable it with PATCH .../eval-suites/${target.suiteId}/schedule.`;
    const every = target.intervalMinutes === 1 ? 'every minute' : `every ${target.intervalMinutes} minutes`;
    return `Runs ${suite} ${every}, as set through the Runway API.`;
  }
}

function ignoreMissing(error: unknown): void {
  if (!(error instanceof ScheduleNotFoundError)) throw error;
}

/**
 * At API start: every enabled suite's schedule exists in Temporal again (the database keeps the wanted state).
 * Idempotent, and safe when several API processes start at once. How many were created.
 */
export async function restoreSuiteSchedules(sql: Db, scheduler: SuiteScheduler, log: Logger): Promise<number> {
  let restored = 0;
  for (const suite of await listEnabledSchedules(sql)) {
    const target = {
      suiteId: suite.id,
      suiteName: suite.name,
      projectId: suite.projectId,
      organizationId: suite.organizationId,
      enabled: true as const,
      intervalMinutes: suite.scheduleIntervalMinutes,
    };
    try {
      if (await scheduler.restore(target)) {
        restored += 1;
        log.warn(
          { suiteId: suite.id, intervalMinutes: suite.scheduleIntervalMinutes },
          "suite schedule was missing in Temporal; created it again from the suite's saved schedule",
        );
      }
    } catch (error) {
      log.warn(
        { suiteId: suite.id, err: error instanceof Error ? error.message : String(error) },
        'could not restore a suite schedule in Temporal; the next API start or a PATCH of the schedule tries again',
      );
    }
  }
  return restored;
}
