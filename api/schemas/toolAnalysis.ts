import { z } from 'zod';

export const toolAnalysisSchema = z
  .object({
    tools: z.array(
      z.object({
        toolName: z.string(),
        expected: z.number().meta({ description: 'expected calls of the tool, over the finished iterations' }),
        called: z.number().meta({ description: 'calls of the tool' }),
        truePositives: z
          .number()
          .meta({ description: 'calls that an expected call of the same tool in the same iteration accounts for' }),
        precision: z.number().nullable().meta({ description: 'truePositives / called; null when never called' }),
        recall: z.number().nullable().meta({ description: 'truePositives / expected; null when never expected' }),
        f1: z.number().nullable(),
      }),
    ),
    confusions: z.array(z.object({ expected: z.string(), actual: z.string(), count: z.number() })).meta({
      description:
        'the most frequent (at most 10): iterations where `expected` was called less often than expected and `actual` more',
    }),
    coverage: z.object({
      source: z.literal('calls').meta({
        description:
          "computed from the iterations' expected and actual calls (no snapshot of the servers' tools is stored)",
      }),
      toolsExpected: z.number().meta({ description: 'distinct tools some iteration expected' }),
      toolsCalled: z.number().meta({ description: 'distinct tools some iteration called' }),
      expectedNeverCalled: z.array(z.string()),
      calledNeverExpected: z.array(z.string()),
    }),
  })
  .meta({ id: 'EvalRunToolAnalysis' });
