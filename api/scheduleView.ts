import { suiteScheduleId } from '../workflows/definitions.js';
import type { ScheduleState } from '../domain/evals/suite.js';

/** A suite's `schedule` object on the wire (suiteScheduleSchema), from what the database keeps. */
export function scheduleView(suite: { id: string } & ScheduleState) {
  return {
    enabled: suite.scheduleEnabled,
    intervalMinutes: suite.scheduleIntervalMinutes,
    // A schedule exists in Temporal once the suite was given an interval (disabled, it is kept paused).
    temporalScheduleId: suite.scheduleIntervalMinutes === null ? null : suiteScheduleId(suite.id),
    lastRunId: suite.lastScheduledRunId,
    lastRunAt: suite.lastScheduledRunAt?.getTime() ?? null,
    lastSkipped: suite.scheduleLastSkippedAt
      ? {
          at: suite.scheduleLastSkippedAt.getTime(),
          reason: suite.scheduleLastSkipReason ?? 'UNKNOWN',
          message: suite.scheduleLastSkipMessage ?? '',
        }
      : null,
  };
}

/**
 * The suite list's schedule summary: null for a suite never given an interval. Its schedule in Temporal fires every
 * interval counted from the epoch (an interval spec without offset, api/suiteScheduler.ts), so the next due time
 * follows from the interval alone; null while paused.
 */
export function scheduleSummary(
  suite: Pick<ScheduleState, 'scheduleEnabled' | 'scheduleIntervalMinutes' | 'lastScheduledRunAt'>,
  minuteMs: number,
  now = Date.now(),
) {
  if (suite.scheduleIntervalMinutes === null) return null;
  const every = suite.scheduleIntervalMinutes * minuteMs;
  return {
    enabled: suite.scheduleEnabled,
    intervalMinutes: suite.scheduleIntervalMinutes,
    nextRunAt: suite.scheduleEnabled ? (Math.floor(now / every) + 1) * every : null,
    lastRunAt: suite.lastScheduledRunAt?.getTime() ?? null,
  };
}
