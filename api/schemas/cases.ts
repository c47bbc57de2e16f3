import { z } from 'zod';
import { limits } from '../../domain/limits.js';
import { epochMs } from './common.js';
import {
  advancedConfigSchema,
  caseShapeIssues,
  expectedToolCallSchema,
  expectedToolCallsOrNames,
  matchOptionsSchema,
  outputCheckSchema,
  testCaseFields,
  turnsExpectedToolCalls,
} from './evals.js';

/*
 * A suite's cases through the case routes (`/eval-suites/{s}/cases`). Replies use the real product's names (prompt,
 * iterations, isNegative, models); requests take those and Runway's own (query, runs, isNegativeTest, model +
 * provider), so a case read from either API can be written back. One field given under both names with different
 * values is refused: which one was meant cannot be known.
 */

const modelEntry = z.strictObject({ model: testCaseFields.model.unwrap(), provider: testCaseFields.provider });

/** Each field once, under both names; which are required and how they combine is checked below. */
const caseFields = {
  kind: z.literal('prompt', { error: 'Runway runs prompt cases only: `kind` is "prompt" or left out' }).optional(),
  title: testCaseFields.title,
  prompt: testCaseFields.query
    .optional()
    .meta({ description: "the user prompt the model is given (Runway's `query`)" }),
  query: testCaseFields.query.optional().meta({ description: "Runway's name for `prompt`" }),
  expectedToolCalls: expectedToolCallsOrNames
    .optional()
    .meta({ description: 'bare tool names or `{ toolName, arguments }`' }),
  expectedOutput: testCaseFields.expectedOutput,
  outputCheck: testCaseFields.outputCheck,
  turns: testCaseFields.turns,
  scenario: testCaseFields.scenario,
  iterations: testCaseFields.runs.meta({ description: "iterations per run, 1..10 (Runway's `runs`); default 1" }),
  runs: testCaseFields.runs.meta({ description: "Runway's name for `iterations`" }),
  isNegative: z
    .boolean()
    .optional()
    .meta({ description: "passes only when no tool is called (Runway's `isNegativeTest`)" }),
  isNegativeTest: testCaseFields.isNegativeTest,
  models: z
    .array(modelEntry)
    .max(limits.modelsPerCase, `a case compares at most ${limits.modelsPerCase} models`)
    .optional()
    .meta({
      description: `the models the case runs with (at most ${limits.modelsPerCase}): every iteration runs once per model; empty: the suite's default model(s)`,
    }),
  model: testCaseFields.model.meta({ description: "Runway's name for `models[0].model`" }),
  provider: testCaseFields.provider.meta({ description: "Runway's name for `models[0].provider`" }),
  matchOptions: matchOptionsSchema.optional(),
  advancedConfig: testCaseFields.advancedConfig,
  elicitation: testCaseFields.elicitation,
};

type Issue = { path: (string | number)[]; message: string };

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The value of a field given under its public name, its Runway name, or both (then they must agree). */
function either<T>(
  issues: Issue[],
  given: Record<string, unknown>,
  publicName: string,
  runwayName: string,
): T | undefined {
  const a = given[publicName];
  const b = given[runwayName];
  if (a !== undefined && b !== undefined && !same(a, b)) {
    issues.push({
      path: [runwayName],
      message: `\`${publicName}\` and \`${runwayName}\` are one field under two names and their values differ: give one`,
    });
  }
  return (a !== undefined ? a : b) as T | undefined;
}

interface ModelChoice {
  model?: string | null;
  provider?: string | null;
  /** the case's models when `models` names more than one (model/provider are then the first's) */
  models?: { model: string; provider?: string }[] | null;
}

/** The model and provider from `models` and/or `model` + `provider`; `models: []` (or null) means none: the suite's default. */
function modelChoice(
  issues: Issue[],
  given: { models?: { model: string; provider?: string }[] | null; model?: string | null; provider?: string | null },
): ModelChoice {
  if (given.models === undefined) return { model: given.model, provider: given.provider };
  const entry = given.models?.[0];
  const fromModels = { model: entry?.model ?? null, provider: entry?.provider ?? null };
  if (given.model !== undefined && given.model !== fromModels.model) {
    issues.push({
      path: ['model'],
      message: '`models[0].model` and `model` are one field under two names and their values differ: give one',
    });
  }
  if (
    given.provider !== undefined &&
    given.provider !== null &&
    entry?.provider !== undefined &&
    given.provider !== entry.provider
  ) {
    issues.push({
      path: ['provider'],
      message: '`models[0].provider` and `provider` are one field under two names and their values differ: give one',
    });
  }
  const provider = fromModels.provider ?? given.provider ?? null;
  return {
    model: fromModels.model,
    provider,
    // several models are kept as a list; one (or none) as model + provider, as before models existed
    models: (given.models?.length ?? 0) > 1 ? given.models : null,
  };
}

function resolve(given: Record<string, unknown>) {
  const issues: Issue[] = [];
  const query = either<string>(issues, given, 'prompt', 'query');
  const runs = either<number>(issues, given, 'iterations', 'runs');
  const isNegativeTest = either<boolean>(issues, given, 'isNegative', 'isNegativeTest');
  const { model, provider, models } = modelChoice(issues, given as never);
  return { issues, query, runs, isNegativeTest, model, provider, models };
}

const reportIssues = (issues: Issue[], ctx: z.RefinementCtx) => {
  for (const issue of issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
};

/** POST /eval-suites/{s}/cases: a new case, in Runway's terms (domain/evals/case.ts CaseInput). */
export const createCaseBody = z
  .strictObject(caseFields)
  .superRefine((body, ctx) => {
    const { issues, query } = resolve(body);
    if (query === undefined && !body.turns)
      issues.push({ path: ['prompt'], message: "a case needs a prompt (`prompt`, or Runway's `query`) or turns" });
    issues.push(...caseShapeIssues({ ...body, query }, body.prompt !== undefined ? 'prompt' : 'query'));
    reportIssues(issues, ctx);
  })
  .transform((body) => {
    const { query, runs, isNegativeTest, model, provider, models } = resolve(body);
    return {
      title: body.title,
      query: body.turns ? body.turns[0].prompt : query!,
      runs,
      model: model ?? undefined,
      provider: provider ?? undefined,
      models: models ?? undefined,
      expectedToolCalls: body.turns ? turnsExpectedToolCalls(body.turns) : body.expectedToolCalls,
      isNegativeTest,
      expectedOutput: body.expectedOutput,
      outputCheck: body.outputCheck,
      turns: body.turns,
      scenario: body.scenario,
      advancedConfig: body.advancedConfig,
      matchOptions: body.matchOptions,
      elicitation: body.elicitation,
    };
  })
  .meta({ id: 'CreateEvalCase' });

/** PATCH /eval-suites/{s}/cases/{c}: the fields given change; null clears an optional one. */
export const updateCaseBody = z
  .strictObject({
    ...caseFields,
    title: testCaseFields.title.optional(),
    expectedOutput: testCaseFields.expectedOutput
      .unwrap()
      .nullable()
      .optional()
      .meta({ description: 'null clears it' }),
    outputCheck: outputCheckSchema.nullable().optional().meta({ description: 'null clears it (contains)' }),
    turns: testCaseFields.turns
      .unwrap()
      .nullable()
      .optional()
      .meta({ description: 'null makes the case one prompt again (its first)' }),
    scenario: testCaseFields.scenario.unwrap().nullable().optional().meta({ description: 'null clears it' }),
    models: caseFields.models
      .unwrap()
      .nullable()
      .optional()
      .meta({ description: "the case's models; empty or null: the suite's default model(s)" }),
    model: testCaseFields.model
      .unwrap()
      .nullable()
      .optional()
      .meta({ description: "Runway's name for `models[0].model`; null: the suite's default model" }),
    provider: testCaseFields.provider.unwrap().nullable().optional(),
    matchOptions: matchOptionsSchema
      .nullable()
      .optional()
      .meta({ description: 'null clears them (the defaults apply)' }),
    advancedConfig: advancedConfigSchema.nullable().optional().meta({ description: 'null clears it' }),
    elicitation: testCaseFields.elicitation
      .unwrap()
      .nullable()
      .optional()
      .meta({ description: "null clears it (the profile's policy answers)" }),
  })
  .superRefine((body, ctx) => reportIssues(resolve(body).issues, ctx))
  .transform((body) => {
    const { query, runs, isNegativeTest, model, provider, models } = resolve(body);
    return {
      title: body.title,
      query,
      runs,
      model,
      provider,
      // a `models` given replaces the list (null: one model, or the suite's default); left out: the list stays
      models: body.models === undefined ? undefined : models,
      expectedToolCalls: body.expectedToolCalls,
      isNegativeTest,
      expectedOutput: body.expectedOutput,
      outputCheck: body.outputCheck,
      turns: body.turns,
      scenario: body.scenario,
      advancedConfig: body.advancedConfig,
      matchOptions: body.matchOptions,
      elicitation: body.elicitation,
    };
  })
  .meta({ id: 'UpdateEvalCase' });

const publicMatchOptionsSchema = z
  .object({
    toolCallOrder: z.enum(['any', 'in-order', 'exact']).optional(),
    extraToolCalls: z.union([z.literal('unlimited'), z.number()]).optional(),
    arguments: z.enum(['partial', 'exact', 'ignore']).optional(),
  })
  .meta({
    id: 'EvalCaseMatchOptions',
    description:
      "the options the case was given, in the real product's words; absent ones take the defaults (any order, unlimited extra calls, partial arguments)",
  });

/** One case as the real product's client reads it, plus Runway's suiteId, advancedConfig and elicitation when set. */
export const caseSchema = z
  .object({
    id: z.string(),
    suiteId: z.string(),
    title: z.string(),
    kind: z.literal('prompt'),
    prompt: z.string(),
    expectedToolCalls: z.array(expectedToolCallSchema),
    expectedOutput: z.string().optional(),
    outputCheck: z
      .object({ mode: z.string(), caseSensitive: z.boolean().optional(), rubric: z.string().optional() })
      .optional()
      .meta({ description: 'how expectedOutput is checked; absent: contains' }),
    turns: z
      .array(
        z.object({
          prompt: z.string(),
          expectedToolCalls: z.array(expectedToolCallSchema),
          expectedOutput: z.string().optional(),
          outputCheck: z
            .object({ mode: z.string(), caseSensitive: z.boolean().optional(), rubric: z.string().optional() })
            .optional(),
          elicitation: z
            .unknown()
            .optional()
            .meta({ description: "the turn's elicitation answer or script (CaseElicitation), when it has one" }),
        }),
      )
      .optional()
      .meta({
        description: "a multi-turn case's prompts; then `prompt` is the first and expectedToolCalls every turn's",
      }),
    scenario: z.string().optional(),
    iterations: z.number(),
    isNegative: z.boolean(),
    models: z
      .array(z.object({ model: z.string(), provider: z.string().optional() }))
      .meta({ description: "the models the case runs with; empty: the suite's default model(s)" }),
    matchOptions: publicMatchOptionsSchema.optional(),
    advancedConfig: z.record(z.string(), z.unknown()).optional(),
    elicitation: z
      .unknown()
      .optional()
      .meta({ description: "the case's elicitation answer or script (CaseElicitation), when it has one" }),
    ingested: z.literal(true).optional().meta({
      description:
        'present when ingest created the case: it holds reported results only and runs leave it out; writing the case (a PATCH, or an inline test with its title and prompt) makes it runnable',
    }),
    createdAt: epochMs,
    updatedAt: epochMs,
  })
  .meta({ id: 'EvalCase' });

export type CaseView = z.infer<typeof caseSchema>;

export const caseDeletedSchema = z.object({ id: z.string(), deleted: z.literal(true) }).meta({ id: 'EvalCaseDeleted' });
