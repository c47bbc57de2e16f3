import { z } from 'zod';
import { clampedLimit } from './pageLimit.js';
import { evalRunSchema } from './evals.js';
import { suiteDetailSchema } from './suites.js';

/**
 * An out-of-range limit is clamped, as for a suite's runs. The cases come in pages (`casesLimit`, `casesCursor`), so
 * that one reply stays bounded whatever the suite holds: at most 100 runs x 200 cases of history.
 */
export const suiteOverviewQuery = z.strictObject({
  limit: clampedLimit({ max: 100, fallback: 30 }),
  casesLimit: clampedLimit({ max: 200, fallback: 100 }).meta({
    description:
      'cases per page, 1 to 200 (default 100); a value out of range is clamped, one that is not a number gives the default',
  }),
  casesCursor: z
    .string()
    .max(2000)
    .optional()
    .meta({ description: "the previous reply's `casesNextCursor`, unchanged: the next page of cases" }),
});

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
      .meta({
        description:
          "a page of the suite's cases (up to `casesLimit`), oldest first, each with its pass rate in each of those runs",
      }),
    casesNextCursor: z.string().optional().meta({
      description: 'pass as `casesCursor` for the next page of cases (with the same `limit`); absent on the last page',
    }),
  })
  .meta({ id: 'EvalSuiteOverview' });
