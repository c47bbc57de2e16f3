import { z } from 'zod';
import { int4 } from '../../domain/columnLimits.js';
import { epochMs } from './common.js';

/** A week: the longest interval a schedule takes (the column's check, migration 030). */
export const MAX_INTERVAL_MINUTES = 10_080;

export const suiteScheduleBody = z
  .strictObject({
    enabled: z.boolean(),
    intervalMinutes: int4({ min: 1, max: MAX_INTERVAL_MINUTES })
      .nullable()
      .optional()
      .meta({
        description: `minutes between runs, 1..${MAX_INTERVAL_MINUTES} (a week); required when enabled, kept when omitted while disabling`,
      }),
  })
  .superRefine((body, ctx) => {
    if (body.enabled && (body.intervalMinutes === undefined || body.intervalMinutes === null)) {
      ctx.addIssue({
        code: 'custom',
        path: ['intervalMinutes'],
        message: `an enabled schedule needs intervalMinutes (1..${MAX_INTERVAL_MINUTES})`,
      });
    }
  })
  .meta({ id: 'EvalSuiteScheduleChange' });

export type SuiteScheduleBody = z.infer<typeof suiteScheduleBody>;

export const suiteScheduleSchema = z
  .object({
    enabled: z.boolean(),
    intervalMinutes: z.number().nullable(),
    temporalScheduleId: z.string().nullable().meta({
      description:
        "the suite's Temporal Schedule, on the Schedules page of Temporal Web UI; null while the suite was never given an interval",
    }),
    lastRunId: z.string().nullable().meta({ description: 'the newest run the schedule started (source "schedule")' }),
    lastRunAt: epochMs.nullable(),
    lastSkipped: z
      .object({
        at: epochMs,
        reason: z.string().meta({
          description:
            'e.g. CONCURRENT_RUN_LIMIT, MODEL_KEY_MISSING, NO_RUNNABLE_CASES, NO_SAVED_SERVER_SELECTION, NO_TESTS, NOT_FOUND, ROOT_NOT_ALLOWED',
        }),
        message: z.string(),
      })
      .nullable()
      .meta({ description: 'the newest due run that could not start, and why; it was skipped, not queued' }),
  })
  .meta({ id: 'EvalSuiteSchedule' });
