import { z } from 'zod';
import { compareDriftSchema } from './surfaces.js';
import { id } from './common.js';
import { runStatusSchema } from './evals.js';

const interval = z.object({ low: z.number(), high: z.number() });
const rateSide = z.object({ passed: z.number(), total: z.number(), passRate: z.number() });
const caseStatus = z.enum([
  'regressed',
  'fixed',
  'new_case',
  'removed_case',
  'unchanged_passed',
  'unchanged_failed',
  'changed',
]);
const toolSide = z.object({
  called: z.number(),
  expected: z.number(),
  precision: z.number().nullable(),
  recall: z.number().nullable(),
  f1: z.number().nullable(),
});
const confusion = z.object({ expected: z.string(), called: z.string(), count: z.number() });
const performance = z.object({
  total: z.number(),
  passed: z.number(),
  latencyMs: z.object({ p50: z.number().nullable(), p95: z.number().nullable() }),
  tokens: z.object({ input: z.number(), output: z.number(), total: z.number() }),
  costUsd: z.number().nullable().meta({
    description:
      "USD the side's finished iterations cost at the organization's prices when each finished; null: unknown (an iteration without a known price, or recorded before costs were)",
  }),
});
const nonInferiorityTest = {
  verdict: z.enum(['non_inferior', 'inferior', 'inconclusive']).meta({
    description:
      'non_inferior: the 95% interval of current - base lies above -margin; inferior: below it; inconclusive: it straddles -margin',
  }),
  difference: z.number().meta({ description: 'current - base pass rate' }),
  differenceInterval: interval.meta({ description: "95%, Newcombe's hybrid score interval" }),
};
const nonInferiority = z
  .object({
    margin: z.number(),
    overall: z.object(nonInferiorityTest).meta({ description: "the matched cases' iterations pooled" }),
    cases: z.array(z.object({ caseId: z.string().nullable(), title: z.string(), ...nonInferiorityTest })),
  })
  .meta({
    id: 'EvalNonInferiority',
    description: 'with margin: is the current side no worse than the base by more than the margin',
  });
const side = z.object({
  runId: z.string(),
  runNumber: z.number(),
  suiteId: z.string(),
  status: runStatusSchema,
  source: z.string(),
  model: z.string().nullable().optional().meta({ description: 'with by=model: the model this side is' }),
});

export const comparisonSchema = z
  .object({
    by: z.enum(['run', 'model']),
    base: side,
    current: side,
    suite: z.object({
      base: rateSide,
      current: rateSide,
      difference: z.number().meta({ description: 'current - base pass rate, over every finished iteration' }),
      differenceInterval: interval.meta({ description: "95%, Newcombe's hybrid score interval" }),
      verdict: z.enum(['regressed', 'improved', 'no_significant_change']).meta({
        description:
          "follows from the cases' verdicts: regressed when a matched case regressed significantly, else improved when one was fixed; new and removed cases never decide it",
      }),
      verdictReason: z.string().meta({ description: 'the verdict in words: the cases it rests on' }),
      counts: z.record(z.string(), z.number()),
      pooled: z
        .object({
          base: rateSide,
          current: rateSide,
          difference: z.number(),
          differenceInterval: interval,
          pValue: z.number().meta({ description: "Fisher's exact test on the matched cases' pooled pass/fail counts" }),
          decides: z.literal(false).meta({ description: 'reported beside the verdict, never deciding it' }),
        })
        .meta({ description: "the matched cases' iterations pooled: a broad, small slide shows here first" }),
    }),
    cases: z.array(
      z.object({
        caseId: z.string().nullable(),
        title: z.string(),
        query: z.string(),
        status: caseStatus,
        base: rateSide.nullable(),
        current: rateSide.nullable(),
        difference: z.number().nullable(),
        differenceInterval: interval.nullable(),
        pValue: z.number().nullable().meta({ description: "Fisher's exact test, two-sided" }),
        adjustedPValue: z.number().nullable().meta({ description: 'Benjamini-Hochberg, across the matched cases' }),
        significant: z.boolean().meta({ description: 'adjustedPValue <= 0.05 (false-discovery rate 5%)' }),
        iterationsNeeded: z.number().nullable().meta({
          description:
            'iterations per case (each side) to detect this difference with 80% power at alpha 0.05; null without a difference',
        }),
        toolDrift: z.array(z.string()).optional().meta({
          description:
            'Runway extension: the tools this case expected or called whose definition changed between the runs (drift)',
        }),
      }),
    ),
    tools: z.array(
      z.object({ toolName: z.string(), base: toolSide, current: toolSide, f1Difference: z.number().nullable() }),
    ),
    coverage: z.object({
      source: z.literal('calls').meta({
        description:
          "computed from the iterations' expected and actual calls (the servers' recorded tool surfaces are compared in drift)",
      }),
      expectedNeverCalled: z.array(z.string()),
      calledNeverExpected: z.array(z.string()),
    }),
    confusions: z.object({ base: z.array(confusion), current: z.array(confusion) }),
    performance: z.object({ base: performance, current: performance }),
    nonInferiority: nonInferiority.optional(),
    drift: compareDriftSchema.optional(),
  })
  .meta({ id: 'EvalRunComparison' });

export const modelComparisonSchema = z
  .object({
    by: z.literal('model'),
    runId: z.string(),
    baseModel: z.string().nullable(),
    models: z.array(z.string().nullable()),
    comparisons: z.array(comparisonSchema),
    margin: z.number().optional().meta({ description: 'the non-inferiority margin asked for' }),
    choices: z
      .array(
        z.object({
          model: z.string().nullable(),
          passed: z.number(),
          total: z.number(),
          passRate: z.number(),
          latencyMs: z.object({ p50: z.number().nullable(), p95: z.number().nullable() }),
          tokens: z.object({ input: z.number(), output: z.number(), total: z.number() }),
          costUsd: z
            .number()
            .nullable()
            .meta({ description: "what the model's iterations cost; null: a price is unknown" }),
          verdict: z.enum(['baseline', 'non_inferior', 'inferior', 'inconclusive']),
        }),
      )
      .optional()
      .meta({
        description:
          'with margin: every model with its pass rate, latency, tokens, cost and non-inferiority verdict against the base model; the base model first',
      }),
    cheapestNonInferior: z.string().nullable().optional().meta({
      description:
        'with margin: of the base model and the models non-inferior to it, the one that cost least per iteration (see cheapestBy)',
    }),
    cheapestBy: z.enum(['cost', 'tokens']).optional().meta({
      description: 'cost when every candidate has a known price, else tokens per iteration',
    }),
  })
  .meta({ id: 'EvalModelComparison' });

export const compareQuery = z.strictObject({
  baseRunId: id.optional().meta({ description: "the base run; default: the suite's previous completed run" }),
  by: z.enum(['run', 'model']).default('run'),
  baseModel: z.string().min(1).max(300).optional().meta({ description: 'with by=model: the model compared against' }),
  margin: z.coerce.number().gt(0).lt(1).optional().meta({
    description:
      'non-inferiority margin as a rate (0.05: five points): per case and overall, is the current side (each model, with by=model) no worse than the base by more than this',
  }),
});
