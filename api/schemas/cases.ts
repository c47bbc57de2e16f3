import { z } from 'zod';
import { epochMs } from './common.js';

/*
 * A suite's case as the real product's case routes show it: the public names of Runway's test-case fields
 * (prompt = query, iterations = runs, isNegative = isNegativeTest, models = model + provider).
 */
export const caseSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    kind: z.literal('prompt'),
    prompt: z.string(),
    expectedToolCalls: z.array(z.object({ toolName: z.string(), arguments: z.record(z.string(), z.unknown()).optional() })),
    expectedOutput: z.string().optional(),
    iterations: z.number(),
    isNegative: z.boolean(),
    models: z.array(z.object({ model: z.string(), provider: z.string().optional() })).meta({ description: "empty: the case runs on the suite's default model" }),
    matchOptions: z.record(z.string(), z.unknown()).optional(),
    createdAt: epochMs,
    updatedAt: epochMs,
  })
  .meta({ id: 'Case' });

export type CaseView = z.infer<typeof caseSchema>;
