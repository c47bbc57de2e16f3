import { z } from 'zod';
import { artifactFormats } from '../../domain/ingest/artifacts/index.js';
import { limits } from '../../domain/limits.js';
import { INT4_MAX, int4, int4Amount } from '../../domain/columnLimits.js';
import { describeJsonProblem, inspectJson } from '../jsonLimits.js';
import { epochMs, id } from './common.js';
import { evalRunSchema, passCriteriaSchema } from './evals.js';

/** Results per `report` or `runs/iterations` call; the MCPJam SDK reporter never sends more in one. */
export const MAX_RESULTS_PER_CALL = limits.resultsPerCall;

/** Ingest bodies carry traces and artifacts: 6 MiB per request, against 1 MiB elsewhere. Beyond it: 400 BODY_TOO_LARGE. */
export const INGEST_BODY_LIMIT = 6 * 1024 * 1024;

const name = z.string().trim().min(1).max(500);
const shortText = z.string().max(1000);
/** Tokens and milliseconds: stored rounded, in integer columns. */
const amount = int4Amount();
/*
 * What a caller writes (a run, a result, expected calls, token counts, CI details) is strict: an unknown key is a 400
 * with a hint (unknownFields.ts). What a result records as it happened (actual tool calls, traces, metadata) is
 * kept as sent, extra keys included. Fields the MCPJam SDK reporter sends that Runway has no use for are named, so
 * they are accepted, and are never stored (its replay credentials among them).
 */

const expectedCall = z.strictObject({
  toolName: z.string().min(1).max(200),
  arguments: z.record(z.string(), z.unknown()).optional(),
});
const actualCall = z.looseObject({
  toolName: z.string().min(1).max(200),
  arguments: z.record(z.string(), z.unknown()).optional(),
});

/** A field the MCPJam SDK reporter sends and Runway does not use: accepted, never stored. */
const unusedSdkField = <T extends z.ZodType>(schema: T, what: string) =>
  schema.optional().meta({ description: `sent by the MCPJam SDK reporter (${what}); accepted and not stored` });
const sdkObject = z.record(z.string(), z.unknown());

/** Without a total, the stored total is input + output, which must fit its column too. */
const tokens = z
  .strictObject({ input: amount.optional(), output: amount.optional(), total: amount.optional() })
  .refine((t) => t.total !== undefined || Math.round(t.input ?? 0) + Math.round(t.output ?? 0) <= INT4_MAX, {
    message: `input + output is more than ${INT4_MAX}, the most a total can be; give total`,
  });

const traceMessage = z.looseObject({ role: z.string().max(100), content: z.unknown() });
const traceSpan = z.looseObject({
  id: z.string().max(200),
  parentId: z.string().max(200).optional(),
  name: z.string().max(1000),
  category: z.enum(['llm', 'tool', 'step', 'error']),
  startMs: z.number(),
  endMs: z.number(),
  status: z.string().max(100).optional(),
});

export const evalResultSchema = z
  .strictObject({
    caseTitle: name,
    query: z.string().max(50_000).optional(),
    passed: z.boolean(),
    durationMs: amount.optional(),
    provider: z.string().max(100).optional(),
    model: z.string().max(300).optional(),
    expectedToolCalls: z.array(expectedCall).max(1000).optional(),
    actualToolCalls: z
      .array(actualCall)
      .max(1000)
      .optional()
      .meta({ description: 'as the calls happened: keys beyond these (e.g. isError) are kept' }),
    tokens: tokens.optional(),
    error: z.string().max(100_000).optional(),
    errorDetails: z.unknown().optional(),
    trace: z
      .union([
        z.string(),
        z.array(traceMessage),
        z.looseObject({
          messages: z.array(traceMessage).optional(),
          spans: z.array(traceSpan).optional(),
          prompts: z.array(z.record(z.string(), z.unknown())).optional(),
        }),
      ])
      .optional()
      .meta({
        description:
          'plain text, a message list, or { messages, spans, prompts }; stored in the shape GET .../trace answers',
      }),
    externalIterationId: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .meta({ description: 'the idempotency key of this result within its run' }),
    externalCaseId: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .meta({ description: "the case's identity in the suite; without it, title + query" }),
    metadata: z.record(z.string().max(200), z.union([z.string().max(10_000), z.number(), z.boolean()])).optional(),
    isNegativeTest: z.boolean().optional(),
    advancedConfig: unusedSdkField(sdkObject, "the case's model settings; the reported result is not re-run"),
    matchOptions: unusedSdkField(sdkObject, 'how the SDK matched tool calls; `passed` is the result, not re-scored'),
    widgetSnapshots: unusedSdkField(
      z.array(z.unknown()).max(100),
      'MCP App widgets rendered; their HTML is uploaded through artifacts/upload-url',
    ),
    hostSnapshot: unusedSdkField(sdkObject, 'the host configuration of the iteration'),
  })
  // Free-form JSON (traces, error details, tool arguments) is bounded by the edge's check of the whole body; the
  // schema applies the same check to each result, for one that reaches it another way.
  .superRefine((result, ctx) => {
    const problem = inspectJson(result);
    if (problem) ctx.addIssue({ code: 'custom', ...describeJsonProblem(problem) });
  })
  .meta({ id: 'EvalResultInput' });

const results = z
  .array(evalResultSchema)
  .min(1, 'give at least one result')
  .max(
    MAX_RESULTS_PER_CALL,
    `at most ${MAX_RESULTS_PER_CALL} results per call: send more through runs/start, runs/iterations (${MAX_RESULTS_PER_CALL} at a time) and runs/finalize`,
  );

export const ingestRunBody = z
  .strictObject({
    suiteName: z.string().trim().min(1).max(200),
    suiteDescription: z.string().max(5000).optional(),
    serverNames: z
      .array(z.string().max(200))
      .max(50)
      .optional()
      .meta({ description: 'names of saved servers in the project; unknown names are ignored' }),
    notes: z.string().max(10_000).optional(),
    passCriteria: passCriteriaSchema.optional(),
    externalRunId: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .meta({ description: "the reporter's id for the run: the idempotency key of start and report" }),
    framework: z.string().max(100).optional(),
    ci: z
      .strictObject({
        provider: shortText,
        pipelineId: shortText,
        jobId: shortText,
        runUrl: z.string().max(2000),
        branch: shortText,
        commitSha: shortText,
      })
      .partial()
      .optional(),
    expectedIterations: int4({ min: 0, max: limits.iterationsPerIngestedRun }).optional(),
    tags: z.array(z.string().max(200)).max(100).optional(),
    serverReplayConfigs: unusedSdkField(
      z.array(z.unknown()).max(50),
      'how to reconnect to the servers, credentials included',
    ),
    hostConfig: unusedSdkField(
      sdkObject,
      'only when GET /sdk/v1/info advertises evalsHostConfig, which Runway does not',
    ),
    hostConfigHash: unusedSdkField(z.string().max(200), 'with hostConfig'),
  })
  .meta({ id: 'IngestRunStart' });

export const reportBody = ingestRunBody.extend({ results }).meta({ id: 'IngestReport' });

export const iterationsBody = z.strictObject({ runId: id, results }).meta({ id: 'IngestIterations' });

export const finalizeBody = z
  .strictObject({ runId: id.optional(), externalRunId: z.string().trim().min(1).max(500).optional() })
  .refine((body) => body.runId !== undefined || body.externalRunId !== undefined, {
    message: 'give runId or externalRunId (the SDK sends both)',
    path: ['runId'],
  })
  .meta({ id: 'IngestFinalize' });

export const uploadUrlBody = z
  .strictObject({
    format: z
      .enum(artifactFormats)
      .optional()
      .meta({ description: 'parse the upload into a finalized run; without it the blob is only stored' }),
    suiteName: z.string().trim().min(1).max(200).optional().meta({
      description:
        "the suite the run is saved under; default: the report's own name (JUnit `<testsuites name>`, else the first `<testsuite name>`), else one per format",
    }),
    externalRunId: z.string().trim().min(1).max(500).optional().meta({
      description:
        "the run the artifact becomes (its idempotency key, as in `report`); default: derived from the format, suiteName and the artifact's bytes, so the same report uploaded twice makes one run",
    }),
  })
  .meta({ id: 'IngestUploadUrlRequest' });

const summary = evalRunSchema.shape.summary;
const status = evalRunSchema.shape.status;
/** Ingest's replies say `pending` while the run is open (contract-notes, Eval ingest); GET /eval-runs/{id} says null. */
const result = z
  .enum(['passed', 'failed', 'pending'])
  .nullable()
  .meta({ description: "the run's verdict once it has ended; `pending` while it is open" });

export const finishedRunReply = z
  .object({ ok: z.literal(true), suiteId: z.string(), runId: z.string(), status, result, summary })
  .meta({ id: 'IngestRunFinished' });

export const startReply = z
  .object({
    ok: z.literal(true),
    reused: z
      .boolean()
      .meta({ description: 'the externalRunId named an existing run; a finished one comes with its summary' }),
    suiteId: z.string(),
    runId: z.string(),
    status,
    result,
    summary: summary.optional(),
  })
  .meta({ id: 'IngestRunStarted' });

export const iterationsReply = z
  .object({
    ok: z.literal(true),
    inserted: z.number(),
    skipped: z.number().meta({ description: 'results the run already had (same externalIterationId)' }),
    total: z.number().meta({ description: 'iterations the run holds now' }),
  })
  .meta({ id: 'IngestIterationsAppended' });

export const uploadUrlReply = z.object({ ok: z.literal(true), uploadUrl: z.string(), expiresAt: epochMs }).meta({
  id: 'IngestUploadUrl',
  description: 'POST or PUT the raw artifact to uploadUrl, without a key, once, before expiresAt',
});

// A missing or malformed token is answered like an unknown one (404 UPLOAD_URL_UNKNOWN), not as a bad request. The
// one query that stays open to other parameters: the URL is Runway's own, used as given, and its token is a
// capability that is checked before anything else.
export const uploadQuery = z.looseObject({ token: z.string().max(1000).catch('') });

export const uploadBody = z
  .unknown()
  .meta({ description: 'the raw artifact, any content type (not JSON-decoded); at most 6 MiB' });

export const uploadReply = z
  .object({
    ok: z.literal(true),
    storageId: z.string(),
    runId: z.string().optional(),
    suiteId: z.string().optional(),
    status: status.optional(),
    result: result.optional(),
    summary: summary.optional(),
    skipped: z
      .number()
      .optional()
      .meta({ description: 'tests the framework skipped: listed as cancelled iterations, outside the pass rate' }),
    reused: z.boolean().optional().meta({
      description:
        'the run already existed (the same report, or the same externalRunId, was ingested before): returned unchanged',
    }),
  })
  .meta({ id: 'IngestUpload' });
