import { z } from 'zod';
import { int4 } from '../../domain/columnLimits.js';
import { DEFAULT_GENERATED_CASES, MAX_GENERATED_CASES } from '../../domain/evals/caseGeneration/generateDrafts.js';
import { caseSchema } from './cases.js';

export const generateCasesBody = z
  .strictObject({
    count: int4({ min: 1, max: MAX_GENERATED_CASES })
      .default(DEFAULT_GENERATED_CASES)
      .meta({ description: `cases to draft, 1 to ${MAX_GENERATED_CASES} (default ${DEFAULT_GENERATED_CASES})` }),
    model: z.string().trim().min(1).max(300).optional().meta({
      description:
        "the model that drafts the cases (default: the suite's model); a hosted id or the provider's own id with provider",
    }),
    provider: z.string().trim().min(1).max(100).optional().meta({
      description: "the provider of a provider-native model id (default: the one the suite's cases use with it)",
    }),
  })
  .meta({ id: 'GenerateCases' });

const count = z.number().int();

export const generatedCasesSchema = z
  .object({
    generationModel: z.string().meta({ description: 'the model that drafted the cases' }),
    provider: z.string().optional(),
    promptVersion: z.string().meta({ description: 'the version of the fixed prompt the cases were drafted with' }),
    created: z.array(caseSchema).meta({ description: "the drafts saved as cases of the suite, in the model's order" }),
    counts: z.object({ normal: count, negative: count }).meta({ description: 'of the created cases' }),
    skipped: z.array(z.object({ title: z.string(), error: z.string() })).meta({
      description:
        'drafts not saved, with the reason: an unknown tool, arguments invalid for the tool, a duplicate, a case the suite already has',
    }),
    tools: z
      .object({ listed: count, inPrompt: count })
      .meta({ description: "the tools of the suite's servers, and how many of them the prompt described" }),
    unreachableServers: z
      .array(z.object({ serverId: z.string(), name: z.string(), code: z.string(), message: z.string() }))
      .optional()
      .meta({ description: 'servers of the suite that could not be listed; the cases were drafted from the others' }),
    usage: z.object({ inputTokens: count, outputTokens: count, totalTokens: count }),
  })
  .meta({ id: 'GeneratedCases' });
