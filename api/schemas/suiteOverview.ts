import { z } from 'zod';
import { clampedLimit } from './pageLimit.js';
import { evalRunSchema } from './evals.js';
import { suiteDetailSchema } from './suites.js';

/** An out-of-range limit is clamped, as for a suite's runs. */
export const suiteOverviewQuery = z.strictObject({ limit: clampedLimit({ max: 100, fallback: 30 }) });

export const suiteOverviewSchema = z
  .object({
    suite: suiteDetailSchema,
    runs: z.array(evalRunSchema).meta({ description: "the suite's runs, newest first, up to `limit`" }),
    cases: z
      .array(
        z.object({
          id: z.string(),
          title: z.string(),
          history: z
            .array(
              z.object({
                runId: z.string(),
                passRate: z
                  .number()
                  .nullable()
                  .meta({ description: "0..1 over the case's finished iterations in the run; null: none there" }),
              }),
            )
            .meta({ description: 'one entry per run of `runs`, oldest first' }),
        }),
      )
      .meta({ description: "the suite's cases, oldest first, each with its pass rate in each of those runs" }),
  })
  .meta({ id: 'EvalSuiteOverview' });
