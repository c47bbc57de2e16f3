import type { ScheduleState } from '../db/suiteSchedules.js';
import { suiteScheduleId } from '../workflows/definitions.js';

/** A suite's `schedule` object on the wire (suiteScheduleSchema), from what the database keeps. */
export function scheduleView(suite: { id: string } & ScheduleState) {
  return {
    enabled: suite.schedule_enabled,
    intervalMinutes: suite.schedule_interval_minutes,
    // A schedule exists in Temporal once the suite was given an interval (disabled, it is kept paused).
    temporalScheduleId: suite.schedule_interval_minutes === null ? null : suiteScheduleId(suite.id),
    lastRunId: suite.last_scheduled_run_id,
    lastRunAt: suite.last_scheduled_run_at?.getTime() ?? null,
    lastSkipped: suite.schedule_last_skipped_at
      ? { at: suite.schedule_last_skipped_at.getTime(), reason: suite.schedule_last_skip_reason ?? 'UNKNOWN', message: suite.schedule_last_skip_message ?? '' }
      : null,
  };
}
