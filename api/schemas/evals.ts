import { MAX_ADAPTIVE_ITERATIONS_PER_CASE } from '../../domain/evals/compare/sequential.js';
import { ADAPTIVE_SUMMARY_STOP_REASONS, DEFAULT_FIRST_ROUND } from '../../domain/evals/adaptive.js';
import { z } from 'zod';
import { runToolSurfacesSchema } from './surfaces.js';
import { limits } from '../../domain/limits.js';
import { int4 } from '../../domain/columnLimits.js';
import { foreignNames } from '../unknownFields.js';
import { normalizeMatchOptions } from '../../domain/evals/matchOptions.js';
import { MAX_JSON_DEPTH, MAX_PATTERN_LENGTH, OUTPUT_CHECK_MODES } from '../../domain/evals/outputCheck.js';
import { caseShapeIssues, turnsExpectedToolCalls } from '../../domain/evals/caseShape.js';
import { JUDGE_PROMPT_VERSION } from '../../domain/evals/judge.js';
import { MAX_CONVERSATION_TURNS } from '../../domain/models/agentLoop.js';
import { caseElicitationSchema } from './clientProfile.js';
import { collection, epochMs, id, serverId } from './common.js';
import { clampedLimit } from './pageLimit.js';

const toolName = z.string().min(1).max(200);
const args = z.record(z.string(), z.unknown());

/*
 * Request objects are strict: an unknown key is a 400 with a hint (unknownFields.ts), never dropped, so that no case
 * runs without an expectation or an option its writer gave. Replies are open.
 */

export const expectedToolCallSchema = z
  .strictObject({ toolName, arguments: args.optional() })
  .meta({ id: 'ExpectedToolCall' });

const argumentMatching = z.enum(['partial', 'exact', 'ignore']);
const extraCallCount = z.number().int().min(0).max(1000);

/**
 * Match options in any of the vocabularies callers write (domain/evals/matchOptions.ts), read into the scorer's
 * form at the edge: what is stored and scored is always `{ toolCallOrder: ignore|strict|superset, maxExtraToolCalls,
 * argumentMatching }`. An unknown key is refused like any other; two spellings of one option that disagree too.
 */
export const matchOptionsSchema = z
  .strictObject({
    toolCallOrder: z.enum(['ignore', 'strict', 'superset', 'any', 'in-order', 'exact']).optional().meta({
      description:
        'ignore (= any, default), superset (= in-order: the expected calls in order, others in between allowed), strict (= exact: position by position)',
    }),
    maxExtraToolCalls: extraCallCount
      .nullable()
      .optional()
      .meta({ description: 'most unexpected calls allowed; null = any number (default)' }),
    extraToolCalls: z
      .union([z.literal('unlimited'), extraCallCount])
      .optional()
      .meta({ description: 'the same as maxExtraToolCalls, in the real product\'s words ("unlimited" = null)' }),
    allowExtraToolCalls: z
      .boolean()
      .optional()
      .meta({ description: 'older spelling: false = maxExtraToolCalls 0, true = any number' }),
    argumentMatching: argumentMatching.optional().meta({ description: 'partial (default), exact or ignore' }),
    arguments: argumentMatching
      .optional()
      .meta({ description: "the same as argumentMatching, in the real product's words" }),
  })
  .superRefine((input, ctx) => {
    for (const conflict of normalizeMatchOptions(input).conflicts)
      ctx.addIssue({ code: 'custom', path: [conflict.fields[1]], message: conflict.message });
  })
  .transform((input) => normalizeMatchOptions(input).options)
  .meta({ id: 'MatchOptions', description: 'defaults: order ignored, extra calls allowed, partial argument matching' });

export const advancedConfigSchema = foreignNames(
  z
    .strictObject({
      system: z.string().max(50_000).optional(),
      temperature: z.number().min(0).max(2).optional(),
      maxSteps: z.number().int().min(1).max(50).optional(),
      toolChoice: z.enum(['auto', 'required', 'none']).optional(),
      failOnToolError: z.boolean().optional(),
    })
    .meta({ id: 'AdvancedConfig' }),
  { systemPrompt: { use: 'system' } },
);

export const outputCheckSchema = z
  .strictObject({
    mode: z
      .enum(OUTPUT_CHECK_MODES)
      .default('contains')
      .meta({
        description: `contains (default) or equals: whitespace-normalized text; regex: expectedOutput is a JavaScript pattern (at most ${MAX_PATTERN_LENGTH} characters) run by a linear-time engine (RE2): no back-references or lookaround; json-subset: expectedOutput is JSON (at most ${MAX_JSON_DEPTH} levels deep) that the answer's JSON (or the first JSON value in it) must contain; judge: a model grades the answer (prompt ${JUDGE_PROMPT_VERSION}), by the suite's judgeModel, else the case's model`,
      }),
    caseSensitive: z
      .boolean()
      .optional()
      .meta({ description: 'contains, equals and regex compare case-insensitively unless true' }),
    rubric: z
      .string()
      .trim()
      .min(1)
      .max(10_000)
      .optional()
      .meta({ description: 'judge mode: what the judge grades by, besides expectedOutput' }),
  })
  .meta({
    id: 'OutputCheck',
    description: "how expectedOutput is checked against the final answer; default { mode: 'contains' }",
  });

const expectedOutput = z.string().max(50_000);
const prompt = z.string().trim().min(1).max(50_000);

/** Expected calls where the real product takes bare tool names too (POST /eval-suites, the case routes, turns). */
export const expectedToolCallsOrNames = z
  .array(z.union([toolName.transform((name) => ({ toolName: name })), expectedToolCallSchema]))
  .max(100);

export const turnSchema = z
  .strictObject({
    prompt,
    expectedToolCalls: expectedToolCallsOrNames
      .default([])
      .meta({ description: 'bare tool names or `{ toolName, arguments }`' }),
    expectedOutput: expectedOutput.optional(),
    outputCheck: outputCheckSchema.optional(),
    elicitation: caseElicitationSchema.optional().meta({
      description:
        "how the questions servers ask during this turn's tool calls are answered, instead of the case's `elicitation` (declares elicitation)",
    }),
  })
  .meta({
    id: 'EvalTurn',
    description: "one user prompt of a multi-turn case and what the model's answer to it must do",
  });

export const caseTurns = z
  .array(turnSchema)
  .min(1)
  .max(MAX_CONVERSATION_TURNS, `a case has at most ${MAX_CONVERSATION_TURNS} turns`)
  .meta({
    description: `a conversation (1 to ${MAX_CONVERSATION_TURNS} prompts, history carried), each turn scored on its own; instead of query/expectedToolCalls/expectedOutput/outputCheck: query, when given, equals the first prompt, and expectedToolCalls, when given, equals every turn's in order`,
  });

export type TurnInput = z.infer<typeof turnSchema>;

export const testCaseFields = {
  title: z.string().trim().min(1).max(500),
  query: prompt,
  runs: int4({ min: 1, max: limits.runsPerTest }).optional(),
  model: z.string().trim().min(1).max(300).optional(),
  provider: z.string().trim().min(1).max(100).optional(),
  isNegativeTest: z.boolean().optional(),
  expectedOutput: expectedOutput.optional().meta({ description: 'checked against the final answer by outputCheck' }),
  outputCheck: outputCheckSchema.optional(),
  turns: caseTurns.optional(),
  scenario: z
    .string()
    .max(50_000)
    .optional()
    .meta({ description: 'what the case is about, in words; kept and shown, not run' }),
  advancedConfig: advancedConfigSchema.optional(),
  matchOptions: matchOptionsSchema.optional(),
  elicitation: caseElicitationSchema.optional().meta({
    description:
      "how the servers' elicitation questions are answered in this case's iterations (declares elicitation): one answer for all, or a script by question name or in order; default: the server's client profile (decline)",
  }),
};

type ExpectedCall = { toolName: string; arguments?: Record<string, unknown> };

/** One model a case runs with: `{ model, provider? }`, as `model` + `provider` of a case. */
export const modelChoiceSchema = z
  .strictObject({ model: testCaseFields.model.unwrap(), provider: testCaseFields.provider })
  .meta({ id: 'EvalModelChoice' });

/** Several models: every iteration of a case runs once per model. */
export const modelsSchema = z
  .array(modelChoiceSchema)
  .min(1, 'give at least one model, or leave `models` out')
  .max(limits.modelsPerCase, `at most ${limits.modelsPerCase} models`);

const caseModels = modelsSchema.optional().meta({
  description: `the models the case runs with (1..${limits.modelsPerCase}): every iteration runs once per model; \`model\` + \`provider\` name one`,
});

/** `model` and `models` name the same thing: both may be given only when `model` is the first of `models`. */
const oneModelChoice = (body: { model?: string; models?: { model: string }[] }, ctx: z.RefinementCtx) => {
  if (body.model !== undefined && body.models !== undefined && body.models[0]?.model !== body.model)
    ctx.addIssue({
      code: 'custom',
      path: ['model'],
      message: '`model` and `models` both name the model and differ: give `models` only',
    });
};

// What a case's query, expectations and turns must satisfy together: the domain's rule (a case edit checks it too).
export { caseShapeIssues, turnsExpectedToolCalls };

/** The case as stored: with turns, query is the first prompt and expectedToolCalls every turn's. */
export function withTurns<T extends { query?: string; expectedToolCalls?: ExpectedCall[]; turns?: TurnInput[] }>(
  c: T,
): T & { query: string } {
  if (!c.turns) return c as T & { query: string };
  return { ...c, query: c.turns[0].prompt, expectedToolCalls: turnsExpectedToolCalls(c.turns) };
}

const caseShape =
  (queryName = 'query') =>
  (c: Parameters<typeof caseShapeIssues>[0], ctx: z.RefinementCtx) => {
    if (!c.turns && (c.query === undefined || c.query === null)) {
      ctx.addIssue({ code: 'custom', path: [queryName], message: `a case needs a ${queryName} (or turns)` });
    }
    for (const issue of caseShapeIssues(c, queryName)) ctx.addIssue({ code: 'custom', ...issue });
  };

/** A case's fields as requests write them; only how an expected call may be written differs between routes. */
const caseFields = {
  ...testCaseFields,
  query: testCaseFields.query.optional().meta({ description: 'the user prompt; may be left out when turns are given' }),
  models: caseModels,
};

export const testCaseSchema = z
  .strictObject({
    ...caseFields,
    expectedToolCalls: z.array(expectedToolCallSchema).max(100).optional(),
  })
  .superRefine(caseShape())
  .superRefine(oneModelChoice)
  .transform(withTurns)
  .meta({ id: 'EvalTestCase' });

/** In POST /eval-suites an expected call may also be a bare tool name. */
const suiteTestCaseSchema = z
  .strictObject({
    ...caseFields,
    expectedToolCalls: expectedToolCallsOrNames.optional(),
  })
  .superRefine(caseShape())
  .superRefine(oneModelChoice)
  .transform(withTurns)
  .meta({ id: 'EvalSuiteTestCase' });

export type TestCaseInput = z.infer<typeof testCaseSchema>;

export const passCriteriaSchema = z.strictObject({ minimumPassRate: z.number().min(0).max(100).default(100) }).meta({
  id: 'PassCriteria',
  description: 'minimumPassRate is a percentage; a finished run passes when passRate*100 >= it',
});

export const serverIds = z.array(serverId).min(1).max(50);

export const iterationIsolation = z.enum(['per-iteration', 'shared']).meta({
  id: 'IterationIsolation',
  description:
    "per-iteration (default): every iteration gets fresh MCP sessions (a new process for a stdio server, a new session over HTTP), so iterations cannot see each other's state; shared: the run's iterations share sessions, cheaper for a stateless server",
});
export const suiteModel = z.string().trim().min(1).max(300);
export const judgeModelSchema = z
  .strictObject({ model: suiteModel, provider: z.string().trim().min(1).max(100).optional() })
  .meta({
    id: 'JudgeModel',
    description: `the model that grades the suite's judge output checks (prompt ${JUDGE_PROMPT_VERSION}): a hosted model id or one of the organization's (or the run's) provider keys; default: each case's own model`,
  });
const modelApiKeys = z.record(z.string().min(1).max(100), z.string().min(1).max(1000)).meta({
  description: 'per-provider model keys for this run only; stored encrypted until the run ends, never returned',
});

/** What a run may spend: once spent, no new iteration starts (those in flight finish) and the run ends completed. */
export const budgetSchema = z
  .strictObject({
    maxTokens: z
      .number()
      .int()
      .min(1)
      .max(limits.budgetTokens)
      .optional()
      .meta({ description: 'total tokens (input + output) of the iterations that ran' }),
    maxIterations: int4({ min: 1, max: limits.iterationsPerRun })
      .optional()
      .meta({ description: 'iterations started; the rest are not run' }),
    maxCostUsd: z
      .number()
      .positive()
      .max(limits.budgetUsd)
      .optional()
      .meta({
        description: `USD the iterations that ran cost at the organization's prices (at most ${limits.budgetUsd}); every model the run plans (and its judge) needs a known price, else 400 reason UNKNOWN_MODEL_PRICE`,
      }),
  })
  .meta({
    id: 'EvalRunBudget',
    description:
      'what a run may spend; when spent, iterations not yet started are kept as cancelled (errorDetails.reason BUDGET_EXHAUSTED), the run ends completed with summary.stoppedBy "budget", and its pass rate counts what ran. Never above the organization\'s ceiling',
  });

export const suiteModels = modelsSchema.meta({
  description: "default models of the suite's cases that name none: each runs every iteration (`model` is the first)",
});

export const suiteName = z.string().trim().min(1).max(200);
export const suiteDescription = z.string().max(5000);

/** Required as in the real product's document: name, serverIds (1 or more), model, tests (1 to 100). */
export const createSuiteBody = z
  .strictObject({
    name: suiteName.meta({ description: 'need not be unique: a name in use makes another suite' }),
    description: suiteDescription.optional(),
    serverIds,
    serverNames: z.array(z.string().max(200)).max(50).optional().meta({
      description:
        'display names parallel to serverIds, as the real product takes them; not used: replies name the saved servers',
    }),
    model: suiteModel.meta({ description: "default model of the suite's cases" }),
    models: suiteModels.optional(),
    budget: budgetSchema.optional().meta({ description: 'the budget of a run of the suite that gives none' }),
    provider: z.string().trim().min(1).max(100).optional(),
    judgeModel: judgeModelSchema.optional(),
    tests: z.array(suiteTestCaseSchema).min(1, 'a suite needs at least one test').max(limits.testsPerRequest),
    passCriteria: passCriteriaSchema.optional(),
    hostId: id.optional().meta({
      description:
        "a host of the project: its client capabilities and roots are what the runs declare to the servers (default: each server's own client profile)",
    }),
    isolation: iterationIsolation.optional(),
    tags: z
      .array(z.string().max(200))
      .max(100)
      .optional()
      .meta({ description: 'accepted and not stored (as in the real product, where they are a no-op)' }),
  })
  .superRefine(oneModelChoice)
  .meta({ id: 'CreateEvalSuite' });

/** POST /eval-runs `adaptive` (issue 31): spend iterations where the comparison with a baseline is still open. */
export const adaptiveRequestSchema = z
  .strictObject({
    baseline: z.union([z.literal('previous'), id]).meta({
      description: 'the run to compare with: a run id of the same suite, or "previous" (its last completed run)',
    }),
    maxIterationsPerCase: int4({ min: 1, max: MAX_ADAPTIVE_ITERATIONS_PER_CASE }).meta({
      description: `the most iterations a case may spend, 1..${MAX_ADAPTIVE_ITERATIONS_PER_CASE} (and within the organization's budget ceiling)`,
    }),
    stopWhen: z.literal('decided').meta({
      description:
        'decided: a case stops once the sequential test decides it (regressed, fixed, or unchanged: no plausible continuation would decide it)',
    }),
    firstRound: int4({ min: 1, max: MAX_ADAPTIVE_ITERATIONS_PER_CASE })
      .optional()
      .meta({
        description: `iterations of every case in the first round (default ${DEFAULT_FIRST_ROUND}); later rounds add max(5, firstRound)`,
      }),
  })
  .meta({
    id: 'AdaptiveIterations',
    description:
      'cases run in rounds; after each, a case whose comparison with the baseline is decided stops, and open ones get another round, until decided or maxIterationsPerCase. The test (Fisher\'s exact test at O\'Brien-Fleming alpha-spending levels, alpha 0.05 per case over all looks) is in docs/COMPARING.md, "Adaptive iterations". Not with iterationOverride',
  });

/** The fields of POST /eval-runs; a suite file (cli/runway/suiteFile.ts) is these plus `servers`. */
export const createRunFields = z.strictObject({
  suiteId: id.optional(),
  suiteName: z.string().trim().max(200).optional(),
  suiteDescription: z.string().max(5000).optional(),
  tests: z
    .array(testCaseSchema)
    .max(limits.testsPerRequest, `at most ${limits.testsPerRequest} inline tests per request`)
    .optional(),
  serverIds: serverIds.optional(),
  model: z
    .string()
    .trim()
    .min(1)
    .max(300)
    .optional()
    .meta({ description: 'default model for inline tests without one' }),
  models: suiteModels
    .optional()
    .meta({ description: "default models for inline tests without any (and a new suite's default models)" }),
  budget: budgetSchema.optional().meta({
    description:
      "this run's budget (default: the suite's); above the organization's ceiling: 400, details.reason ABOVE_ORGANIZATION_LIMIT",
  }),
  concurrency: int4({ min: 1, max: limits.runConcurrency })
    .optional()
    .meta({
      description: `batches of iterations in flight at once, 1..${limits.runConcurrency} (default: the worker's EVAL_ITERATION_CONCURRENCY, never above the organization's ceiling); above the ceiling: 400 ABOVE_ORGANIZATION_LIMIT`,
    }),
  modelApiKeys: modelApiKeys.optional(),
  judgeModel: judgeModelSchema.optional().meta({
    description: "for a new suite: its judge model; for a rerun: replaces the suite's (kept for later runs)",
  }),
  notes: z.string().max(10_000).optional(),
  passCriteria: passCriteriaSchema.optional(),
  iterationOverride: int4({ min: 1, max: limits.runsPerTest }).optional(),
  hostId: id.optional().meta({
    description:
      "the host whose client capabilities and roots this run declares; default: the suite's host (saved for a new suite). " +
      'A root outside what a stdio server of the run allows is 400 VALIDATION_ERROR, details.reason ROOT_NOT_ALLOWED',
  }),
  isolation: iterationIsolation.optional().meta({
    description: "how this run's iterations get MCP sessions; default: the suite's setting (saved for a new suite)",
  }),
  dryRun: z.boolean().optional().meta({
    description:
      'true: nothing is written and nothing runs; the reply (200, EvalRunEstimate) is the plan the request would start and its expected cost. The same checks as a run apply (400s, 404s), but the run cap does not',
  }),
  adaptive: adaptiveRequestSchema.optional(),
  queue: z
    .boolean()
    .optional()
    .meta({
      description:
        "past the organization's concurrency cap: true creates the run with status `queued` (202, `queue.position`), started in order as runs end, instead of 429 CONCURRENT_RUN_LIMIT; " +
        "false refuses as before. Default: the organization's setting (off unless an operator turned it on). At most MAX_QUEUED_RUNS queued runs per organization: past that, 429 RATE_LIMITED with details.reason RUN_QUEUE_FULL",
    }),
});

export const createRunBody = createRunFields
  .superRefine((body, ctx) => {
    oneModelChoice(body, ctx);
    if (body.suiteId) return;
    if (!body.suiteName) {
      ctx.addIssue({
        code: 'custom',
        path: ['suiteName'],
        message: body.tests
          ? 'inline tests need a suite identity: give suiteId (rerun) or suiteName (new suite)'
          : 'give suiteId (rerun) or suiteName + tests + serverIds (new suite)',
      });
      return;
    }
    if (!body.tests || body.tests.length === 0)
      ctx.addIssue({ code: 'custom', path: ['tests'], message: 'a new suite needs at least one test' });
    if (!body.serverIds)
      ctx.addIssue({ code: 'custom', path: ['serverIds'], message: 'a new suite needs serverIds (at least one)' });
  })
  .meta({ id: 'CreateEvalRun' });

export type CreateRunBody = z.infer<typeof createRunBody>;

const caseUpsertSchema = z.object({
  committed: z.array(z.object({ id: z.string().optional(), name: z.string() })),
  failed: z.array(z.object({ id: z.string().optional(), name: z.string(), error: z.string() })),
});

const serverRef = z.object({ id: z.string(), name: z.string() });

export const warningsSchema = z
  .array(
    z
      .object({ reason: z.literal('UNKNOWN_TOOL'), toolName: z.string(), testTitle: z.string(), message: z.string() })
      .meta({ id: 'EvalWarning' }),
  )
  .optional()
  .meta({
    description:
      "advice that never refuses the request: expected tools that none of the selected servers lists (checked when every server's tools could be listed within a few seconds); absent when there is none",
  });

export const suiteCreatedSchema = z
  .object({
    suiteId: z.string(),
    name: z.string(),
    servers: z.array(serverRef),
    caseUpsert: caseUpsertSchema,
    warnings: warningsSchema,
  })
  .meta({ id: 'EvalSuiteCreated' });

const skippedCaseSchema = z
  .object({
    caseId: z.string().nullable(),
    title: z.string(),
    reason: z.enum(['CASE_DELETED', 'PROMPTS_CHANGED']),
  })
  .meta({ id: 'RegradeSkippedCase' });

/**
 * A run's status (issue 33 adds `queued`, which the reference document's enum lacks): only a run created with
 * `queue: true`, or under its organization's queue setting, is ever queued, so a client that never opts in never
 * sees it.
 */
export const runStatusSchema = z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']).meta({
  description:
    'queued: created past the concurrency cap with queue: true (or the organization queues runs), waiting for a slot, nothing run yet; only runs that opted in are ever queued. running, then completed, failed or cancelled',
});

/** Where a queued run stands in its organization's queue; absent once it left the queue. */
export const queuePlaceSchema = z
  .object({
    position: z.number().meta({
      description:
        "1: the next of the organization's queued runs to start; computed when read (runs ahead of it may start or be cancelled meanwhile)",
    }),
  })
  .meta({ id: 'EvalRunQueuePlace', description: 'present while the run is queued' });

export const runCreatedSchema = z
  .object({
    runId: z.string(),
    suiteId: z.string(),
    status: z.enum(['running', 'queued']).meta({
      description:
        'queued only when the request asked to queue (queue: true, or the organization setting) and the cap was full',
    }),
    queue: queuePlaceSchema.optional(),
    caseUpsert: caseUpsertSchema,
    servers: z.array(serverRef),
    warnings: warningsSchema,
    leftOut: z
      .object({
        cases: z.number().meta({ description: "how many of the suite's cases the run does not run" }),
        reason: z.literal('INGESTED_RESULTS_ONLY'),
        message: z.string(),
      })
      .optional()
      .meta({
        description:
          'the cases of the suite the run leaves out, and why: cases that ingest created hold reported results only and are never run (writing such a case, as an inline test with its title and prompt or with a PATCH, makes it runnable); absent when the run runs every case',
      }),
  })
  .meta({ id: 'EvalRunCreated' });

/** A run's budget as it applies: the request's (or the suite's), after the organization's ceiling. */
const resolvedBudget = z.object({
  maxTokens: z.number().optional(),
  maxIterations: z.number().optional(),
  maxCostUsd: z.number().optional(),
});

const costRange = z
  .object({ low: z.number(), expected: z.number(), high: z.number() })
  .meta({ id: 'CostRange', description: 'USD' });

/** POST /eval-runs with dryRun: the plan, and what it is expected to cost; nothing stored, nothing started. */
export const runEstimateSchema = z
  .object({
    dryRun: z.literal(true),
    suite: z.object({
      id: z.string().nullable().meta({ description: 'null: the request would create the suite' }),
      name: z.string(),
    }),
    plan: z.object({
      cases: z.number().meta({ description: 'cases the run would run' }),
      models: z.number().meta({ description: 'distinct models it would call (the judge aside)' }),
      iterations: z
        .number()
        .meta({ description: "iterations in all: each case's runs (or iterationOverride) × its models" }),
      entries: z.array(
        z
          .object({
            caseId: z.string().nullable().meta({ description: 'null: an inline test the run would add' }),
            title: z.string(),
            model: z.string().nullable(),
            provider: z.string().nullable(),
            iterations: z.number(),
            maxIterations: z.number().meta({
              description:
                "the most iterations it may spend: an adaptive run's maxIterationsPerCase (its first round is `iterations`), else `iterations`; the cost's `high` counts these",
            }),
            basis: z.enum(['history', 'heuristic']).meta({
              description: "history: the suite's earlier runs of this case and model; heuristic: see `heuristic`",
            }),
            historyIterations: z.number().meta({ description: 'the earlier iterations measured (0: heuristic)' }),
            tokensPerIteration: z.object({ input: z.number(), output: z.number() }),
            costUsd: costRange.nullable().meta({ description: 'null: the model (or its judge) has no known price' }),
          })
          .meta({ id: 'EvalRunEstimateEntry' }),
      ),
    }),
    tokens: z.object({ input: z.number(), output: z.number(), total: z.number() }).meta({
      description: 'expected tokens of the whole run',
    }),
    costUsd: costRange.nullable().meta({
      description: 'expected USD of the whole run, with a range; null when a model the run uses has no known price',
    }),
    unpricedModels: z.array(z.string()).meta({
      description:
        'models (`<provider>/<name>`) without a known price: an operator sets one with runway-admin model-prices',
    }),
    budget: resolvedBudget
      .nullable()
      .meta({ description: "the budget the run would have, after the organization's ceiling; null: none" }),
    heuristic: z.string().meta({ description: 'how an iteration is estimated, with and without earlier runs' }),
    pricesAsOf: z.string().meta({
      description: "the date of the shipped default prices (an organization's own prices win over them)",
    }),
  })
  .meta({ id: 'EvalRunEstimate' });

/** A cost in a run's summary: absent on runs that ended before costs were recorded. */
const costUsd = z.number().nullable().meta({
  description:
    "USD at the organization's prices when each iteration finished (docs/COST.md); null: unknown (an iteration without a known price, or an ingested one); absent on runs ended before costs were recorded",
});
const adaptiveSummarySchema = z
  .object({
    baselineRunId: z.string(),
    maxIterationsPerCase: z.number(),
    alpha: z
      .number()
      .meta({ description: 'the false regressed-or-fixed rate per case the test keeps, over all its looks' }),
    cases: z.array(
      z.object({
        caseId: z.string(),
        title: z.string(),
        iterations: z.number().meta({ description: 'iterations the case was given (the rounds it ran)' }),
        stopReason: z.enum(ADAPTIVE_SUMMARY_STOP_REASONS).meta({
          description:
            "decided_regressed / decided_fixed: significantly different from the baseline at the look's level; decided_unchanged: no plausible continuation within maxIterationsPerCase would decide it; budget: maxIterationsPerCase reached undecided; no_baseline: the baseline has no finished iteration of the case; undecided: the run ended (cancelled, failed, its budget spent) before the case was decided",
        }),
        pValue: z.number().nullable().meta({ description: "Fisher's exact p at the case's last look" }),
        level: z.number().nullable().meta({ description: 'the level that look tested at (its share of alpha)' }),
      }),
    ),
  })
  .meta({
    id: 'EvalRunAdaptiveSummary',
    description: 'an adaptive run (POST /eval-runs `adaptive`): per case, the iterations spent and why it stopped',
  });

const summarySchema = z
  .object({
    total: z.number().meta({ description: 'the finished iterations: passed + failed + errored' }),
    passed: z.number().meta({ description: 'iterations that were scored and met the expectations' }),
    failed: z.number().meta({ description: 'iterations that were scored and did not meet the expectations' }),
    errored: z.number().optional().meta({
      description:
        'iterations that could not be scored (a model, provider or server error); apart from failed, and counted against the pass rate',
    }),
    passRate: z.number().meta({ description: 'passed / total, 0..1' }),
    models: z
      .array(
        z
          .object({
            model: z.string().nullable(),
            provider: z.string().nullable(),
            total: z.number(),
            passed: z.number(),
            passRate: z.number().meta({ description: '0..1' }),
            wilson95: z.object({ low: z.number(), high: z.number() }),
            tokens: z.object({ input: z.number(), output: z.number(), total: z.number() }),
            costUsd: costUsd.optional(),
            latency: z.object({ p50: z.number().nullable(), p95: z.number().nullable(), mean: z.number().nullable() }),
          })
          .meta({ id: 'EvalRunModelSummary' }),
      )
      .optional()
      .meta({ description: 'one entry per model that ran, in order of first appearance; absent on older runs' }),
    stoppedBy: z
      .literal('budget')
      .optional()
      .meta({ description: 'the run ended early: its budget was spent (the pass rate counts what ran)' }),
    costUsd: costUsd.optional().meta({ description: 'USD the run cost' }),
    cases: z
      .array(
        z
          .object({
            caseId: z.string(),
            model: z.string().nullable().optional(),
            provider: z.string().nullable().optional(),
            total: z.number(),
            passed: z.number(),
            passRate: z.number(),
            costUsd: costUsd.optional(),
          })
          .catchall(z.unknown()),
      )
      .optional()
      .meta({ description: 'one entry per case and model, with passAtK and passHatK' }),
    adaptive: adaptiveSummarySchema.optional(),
  })
  .catchall(z.unknown())
  .meta({
    id: 'EvalRunSummary',
    description:
      'plus statistics: passRateInterval (95% Wilson), passAtK, passHatK, tokens, latencyMs, cases (one entry per case and model)',
  });

export const evalRunSchema = z
  .object({
    id: z.string(),
    suiteId: z.string(),
    runNumber: z.number(),
    status: runStatusSchema,
    queue: queuePlaceSchema.optional(),
    result: z.enum(['passed', 'failed']).nullable().meta({
      description:
        "the run's verdict once it has ended (passed: passRate × 100 ≥ minimumPassRate); null while it runs, as the real product's document says, and for a cancelled run",
    }),
    summary: summarySchema.nullable(),
    progress: z
      .object({
        total: z.number(),
        completed: z.number(),
        passed: z.number().meta({ description: 'iterations that were scored and met the expectations' }),
        failed: z.number().meta({ description: 'iterations that were scored and did not meet the expectations' }),
        errored: z.number().meta({
          description: 'iterations that could not be scored (a model, provider or server error); apart from failed',
        }),
      })
      .meta({
        description: 'completed = passed + failed + errored; total - completed are still to run (or cancelled)',
      }),
    source: z.string(),
    notes: z.string().nullable(),
    passCriteria: z.object({ minimumPassRate: z.number() }),
    hostId: z.string().nullable().meta({ description: 'the host whose client profile the run declared, if any' }),
    isolation: iterationIsolation,
    budget: resolvedBudget
      .nullable()
      .optional()
      .meta({ description: "the run's budget, after the organization's ceiling; null: none" }),
    concurrency: z
      .number()
      .nullable()
      .optional()
      .meta({ description: "the concurrency the run asked for; null: the worker's default" }),
    adaptive: z
      .object({
        baselineRunId: z.string(),
        maxIterationsPerCase: z.number(),
        stopWhen: z.literal('decided'),
        firstRound: z.number(),
        roundSize: z.number(),
      })
      .nullable()
      .optional()
      .meta({ description: 'adaptive iterations against a baseline run (the baseline resolved); null: a fixed-n run' }),
    error: z.string().nullable(),
    regradeOf: z.string().nullable().optional().meta({
      description:
        "a re-grade (source `regrade`): the run whose recorded conversations it graded again with the suite's current expectations; null otherwise",
    }),
    regradeSkipped: z.array(skippedCaseSchema).nullable().optional().meta({
      description: "a re-grade: the original run's cases it left out, and why; null otherwise",
    }),
    toolSurfaces: runToolSurfacesSchema.optional(),
    createdAt: epochMs,
    startedAt: epochMs.nullable(),
    completedAt: epochMs.nullable(),
    tracesExpiredAt: epochMs.optional().meta({
      description:
        "when retention first deleted one of the run's iteration traces (docs/OPERATIONS.md#retention); each such iteration has `traceExpiredAt`; absent while all are kept",
    }),
  })
  .meta({ id: 'EvalRun' });

/** POST /eval-runs/{runId}/regrade's answer (202): the re-grade run, started. */
export const regradeCreatedSchema = z
  .object({
    runId: z
      .string()
      .meta({ description: 'the new run (source `regrade`); compare it with the original by baseRunId' }),
    regradeOf: z.string().meta({ description: 'the run whose recorded conversations it grades again' }),
    suiteId: z.string(),
    status: z.literal('running'),
    iterations: z.number().meta({
      description:
        "recorded conversations graded again (the original's errored iterations are copied as errored, not counted)",
    }),
    skipped: z.array(skippedCaseSchema).meta({
      description:
        "the original's cases left out: deleted since (CASE_DELETED) or asking another prompt now (PROMPTS_CHANGED); compare shows them as removed",
    }),
  })
  .meta({ id: 'EvalRunRegradeCreated' });

export const runParams = z.object({ projectId: id, runId: id });
export const iterationParams = runParams.extend({ iterationId: id });
export const suiteParams = z.object({ projectId: id, suiteId: id });

/** Runs one stream of several runs follows at most (a suite's overview lists up to 100). */
export const MAX_FOLLOWED_RUNS = 100;

/** GET /eval-runs/events: the runs to follow, comma-separated; a run named twice counts once. */
export const runsEventsQuery = z.strictObject({
  runIds: z
    .string()
    .max(MAX_FOLLOWED_RUNS * 201)
    .transform((value, ctx) => {
      const ids = [...new Set(value.split(','))];
      const bad = ids.find((runId) => !id.safeParse(runId).success);
      if (bad !== undefined) {
        ctx.addIssue({ code: 'custom', message: `${JSON.stringify(bad)} is not a valid id (ids are comma-separated)` });
        return z.NEVER;
      }
      if (ids.length > MAX_FOLLOWED_RUNS) {
        ctx.addIssue({ code: 'custom', message: `at most ${MAX_FOLLOWED_RUNS} run ids, got ${ids.length}` });
        return z.NEVER;
      }
      return ids;
    })
    .meta({
      description: `the runs to follow, comma-separated ids (1 to ${MAX_FOLLOWED_RUNS}), each a run of the project`,
    }),
});

export const actualToolCallSchema = z
  .object({ toolName: z.string(), arguments: args, isError: z.boolean().optional() })
  .catchall(z.unknown())
  .meta({ id: 'ActualToolCall' });

export const iterationSchema = z
  .object({
    id: z.string(),
    testCaseId: z.string().nullable(),
    title: z.string(),
    iterationNumber: z.number(),
    status: z.enum(['pending', 'running', 'completed', 'failed', 'cancelled']),
    result: z.enum(['passed', 'failed']).nullable(),
    model: z.string().nullable(),
    provider: z.string().nullable(),
    startedAt: epochMs.nullable(),
    durationMs: z.number().nullable(),
    tokensUsed: z.number(),
    usage: z.object({
      inputTokens: z.number(),
      outputTokens: z.number(),
      totalTokens: z.number(),
      cachedInputTokens: z.number().meta({
        description: 'of the input tokens, those the provider read from its prompt cache (0: it reported none)',
      }),
    }),
    costUsd: z.number().nullable().meta({
      description:
        "USD the iteration cost at its organization's prices when it finished (docs/COST.md): its model's tokens, and a judge's at the judge's price; null: unknown (no known price, an unfinished or ingested iteration, or one recorded before costs were)",
    }),
    actualToolCalls: z.array(actualToolCallSchema),
    expectedToolCalls: z.array(expectedToolCallSchema),
    error: z.string().nullable(),
    errorDetails: z.unknown().optional().meta({
      description:
        'why an errored iteration failed, e.g. { reason: "PROVIDER_AUTH_FAILED", provider, model, status, attempt }; null when it did not error',
    }),
    metadata: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
      .optional()
      .meta({
        description: 'what the reporter attached to an ingested result (`metadata`), as sent; absent when none was',
      }),
    externalIterationId: z.string().optional().meta({
      description:
        "an ingested result's idempotency key within its run (`externalIterationId`), as sent; absent when none was",
    }),
    traceExpiredAt: epochMs.optional().meta({
      description:
        "when retention deleted the iteration's trace (its organization's policy, docs/OPERATIONS.md#retention): its trace then answers 404 with details.reason TRACE_EXPIRED; absent while the trace is kept",
    }),
  })
  .meta({ id: 'EvalIteration' });

export const iterationPage = collection(iterationSchema, 'EvalIterationPage');

/** A malformed cursor is a 400; an out-of-range limit is clamped (contract-notes, Corrections). */
export const iterationsQuery = z.strictObject({
  cursor: z.string().max(2000).optional().meta({ description: "the previous page's `nextCursor`, unchanged" }),
  limit: clampedLimit({ max: 200, fallback: 50 }),
});

const tracedQuestionSchema = z
  .object({
    toolCallId: z.string().meta({ description: "the tool call it came from (the model's id, as in `messages`)" }),
    toolName: z.string().meta({ description: 'the tool as the model called it' }),
    promptIndex: z.number().int().meta({ description: 'the turn the call was made in (`prompts[].promptIndex`)' }),
    atMs: z.number().meta({ description: 'when it was asked, ms since the iteration started' }),
    name: z.string().optional().meta({
      description: "the question's name (a 2026-07-28 server's `inputRequests` key); absent for a 2025-11-25 request",
    }),
    mode: z.enum(['form', 'url']),
    message: z.string(),
    requestedSchema: z.unknown().optional().meta({ description: 'the form asked for (form mode)' }),
    url: z.string().optional().meta({ description: 'the page the user was sent to (URL mode, always declined)' }),
    answeredBy: z.enum(['script', 'policy', 'unanswered']).meta({
      description:
        "script: an answer of the case's or turn's elicitation script; policy: the server's client profile (no script, or URL mode); unanswered: the script had no answer, which fails the iteration",
    }),
    script: z.enum(['case', 'turn']).optional().meta({ description: 'whose script answered (or had no answer)' }),
    scriptEntry: z
      .number()
      .int()
      .optional()
      .meta({ description: 'which answer of the script (its index in `answers`); absent for a single answer' }),
    action: z
      .enum(['accept', 'decline', 'cancel'])
      .optional()
      .meta({ description: 'what the server got; absent when it got an error (`error`)' }),
    content: z.record(z.string(), z.unknown()).optional().meta({ description: 'the accepted content' }),
    error: z.string().optional().meta({ description: 'why the server got an error instead of an answer' }),
    truncated: z
      .object({ originalBytes: z.number(), limitBytes: z.number() })
      .optional()
      .meta({ description: `present when the question was stored cut (at most ${limits.questionTraceBytes} bytes)` }),
  })
  .catchall(z.unknown())
  .meta({ id: 'EvalTraceQuestion' });

export const traceSchema = z
  .object({
    traceVersion: z.literal(1),
    traceId: z.string().optional().meta({
      description:
        "the W3C trace id (32 lowercase hex digits) every MCP tools/call of the iteration carried in `params._meta.traceparent` (SEP-414), each with its own span id: a server's own spans join the iteration by it. Absent for iterations that called no tool's server (and ingested ones)",
    }),
    questions: z
      .array(tracedQuestionSchema)
      .optional()
      .meta({
        description: `the elicitation questions the servers asked during the iteration's tool calls and how each was answered, in order (at most ${limits.tracedQuestions}); absent when none was asked`,
      }),
    questionsOmitted: z
      .number()
      .int()
      .optional()
      .meta({
        description: `questions asked past the ${limits.tracedQuestions} a trace keeps (answered, not recorded)`,
      }),
    messages: z.array(z.unknown()),
    spans: z.array(
      z
        .object({
          id: z.string(),
          parentId: z.string().optional(),
          name: z.string(),
          // `rate-limit`: a wait for a model provider's rate-limit reset (its `provider` and `delayMs`)
          category: z.enum(['llm', 'tool', 'step', 'error', 'judge', 'rate-limit']),
          startMs: z.number(),
          endMs: z.number(),
          status: z.string(),
        })
        .catchall(z.unknown()),
    ),
    prompts: z.array(
      z
        .object({
          promptIndex: z.number(),
          prompt: z.string(),
          expectedToolCalls: z.array(z.unknown()),
          actualToolCalls: z.array(z.unknown()),
          passed: z.boolean(),
          missing: z.array(z.unknown()),
          unexpected: z.array(z.unknown()),
          argumentMismatches: z.array(
            z.object({ expected: z.unknown(), actual: z.unknown(), mismatchedArguments: z.array(z.string()) }),
          ),
        })
        .catchall(z.unknown()),
    ),
    truncated: z
      .object({
        limitBytesPerPart: z
          .number()
          .int()
          .meta({
            description: `the bytes (of JSON) each stored part holds at most: ${limits.tracePartBytes}`,
          }),
        parts: z.number().int().meta({ description: 'how many parts were stored cut' }),
      })
      .optional()
      .meta({
        description:
          'present when parts of messages were larger than a stored part may be (a tool result, a model message): each such part is stored cut, with `truncated: { originalBytes, limitBytes }`',
      }),
  })
  .catchall(z.unknown())
  .meta({ id: 'EvalTrace' });

/** An out-of-range limit is clamped, as the real product does (contract-notes, Corrections). */
export const suiteRunsQuery = z.strictObject({ limit: clampedLimit({ max: 100, fallback: 25 }) });

export const suiteListItem = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    projectId: z.string(),
    serverIds: z.array(z.string()),
    hostId: z
      .string()
      .nullable()
      .meta({ description: "the host whose client profile the suite's runs declare, if any" }),
    createdAt: epochMs,
    updatedAt: epochMs,
    latestRun: z
      .object({
        id: z.string(),
        status: z.string(),
        result: z.string().nullable(),
        passRate: z.number().nullable(),
        passed: z.number().meta({ description: 'iterations that were scored and met the expectations' }),
        failed: z.number().meta({ description: 'iterations that were scored and did not meet the expectations' }),
        errored: z.number().meta({
          description: 'iterations that could not be scored (a model, provider or server error); apart from failed',
        }),
        createdAt: epochMs,
      })
      .nullable(),
    totals: z.object({ runs: z.number(), passed: z.number(), failed: z.number() }),
    passRateTrend: z
      .array(z.number())
      .meta({ description: 'pass rates (0..1) of the last 10 finished runs, oldest first' }),
    sources: z
      .array(z.string())
      .meta({ description: "the distinct sources of the suite's runs (api, sdk, schedule), in name order" }),
    schedule: z
      .object({
        enabled: z.boolean(),
        intervalMinutes: z.number(),
        nextRunAt: epochMs.nullable().meta({ description: 'when the schedule next starts a run; null while paused' }),
        lastRunAt: epochMs.nullable().meta({ description: 'when the schedule last started a run' }),
      })
      .nullable()
      .meta({ description: "the suite's schedule (PATCH .../schedule); null when it was never given one" }),
  })
  .meta({ id: 'EvalSuite' });
