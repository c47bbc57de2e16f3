import type { ScheduleState } from '../db/suiteSchedules.js';
import { suiteScheduleId } from '../workflows/definitions.js';

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
