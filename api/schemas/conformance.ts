import { z } from 'zod';
import { CONFORMANCE_CHECK_STATUSES } from '../../domain/catalog/conformanceCheck.js';
import { CONFORMANCE_REVISIONS } from '../../domain/mcp/conformance/report.js';
import { collection, epochMs, id, pageQuery } from './common.js';

/*
 * Conformance checks of saved servers (issue 32; a Runway extension): the official MCP conformance suite's server
 * scenarios run against a server, their per-check results and a score. Request bodies are strict.
 */

export const conformanceCheckParams = z.object({ projectId: id, serverId: id, checkId: id });

export const startConformanceBody = z.strictObject({
  specVersion: z.enum(CONFORMANCE_REVISIONS).optional().meta({
    description:
      'the protocol revision whose requirement set the suite checks; default: the revision the server last spoke to Runway when the suite carries it (a legacy server: 2025-11-25), else 2026-07-28',
  }),
});

export const conformanceHistoryQuery = pageQuery;

const specReferenceSchema = z.object({ id: z.string(), url: z.string() });

const checkResultSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    status: z.enum(['passed', 'failed', 'warning', 'skipped', 'info']),
    message: z.string().nullable().meta({ description: "the suite's own message for a failure or warning" }),
    specReferences: z.array(specReferenceSchema),
  })
  .meta({ id: 'ConformanceCheckResult' });

const scenarioSchema = z
  .object({
    name: z.string(),
    scored: z.boolean().meta({ description: "counts toward the score (in the revision's requirement set)" }),
    notScoredReason: z.string().nullable(),
    status: z.enum(['passed', 'failed', 'not_applicable']).meta({
      description:
        'passed: no check failed; failed: at least one did; not_applicable: the suite did not run it for this server',
    }),
    checks: z.array(checkResultSchema),
  })
  .meta({ id: 'ConformanceScenario' });

const scoreSchema = z
  .object({
    value: z.number().int().min(0).max(100),
    passedScenarios: z.number().int(),
    scoredScenarios: z.number().int(),
    passedChecks: z.number().int(),
    failedChecks: z.number().int(),
    method: z.string().meta({ description: 'how `value` is computed' }),
  })
  .meta({ id: 'ConformanceScore' });

const reportSchema = z
  .object({
    specVersion: z.enum(CONFORMANCE_REVISIONS),
    suiteVersion: z.string().meta({ description: "the suite package's version" }),
    scenarios: z.array(scenarioSchema),
    score: scoreSchema,
    startedAt: z.string().meta({ description: 'ISO 8601' }),
    finishedAt: z.string().meta({ description: 'ISO 8601' }),
    notes: z.array(z.string()).optional().meta({
      description:
        'what the bridge between the suite and the server refused or cut (a redirect not followed, a reply cut at the size limit, a timeout), each once',
    }),
  })
  .meta({ id: 'ConformanceReport' });

const checkFields = {
  checkId: z.string(),
  projectId: z.string(),
  serverId: z.string(),
  specVersion: z.enum(CONFORMANCE_REVISIONS),
  status: z.enum(CONFORMANCE_CHECK_STATUSES).meta({
    description:
      'queued, running, then completed (with the report), failed (error says why: TIMEOUT, SERVER_UNREACHABLE, CHECK_LOST, ...) or cancelled',
  }),
  score: z.number().int().min(0).max(100).nullable().meta({ description: '0-100 once completed' }),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  timeoutMs: z.number().int().meta({ description: "the check's time limit" }),
  createdAt: epochMs,
  startedAt: epochMs.nullable(),
  finishedAt: epochMs.nullable(),
};

export const conformanceCheckSummarySchema = z
  .object({
    ...checkFields,
    scoreDetails: scoreSchema.nullable().meta({ description: "the report's score, once completed" }),
    suiteVersion: z.string().nullable(),
  })
  .meta({ id: 'ConformanceCheckSummary' });

export const conformanceCheckSchema = z
  .object({
    ...checkFields,
    report: reportSchema.nullable().meta({ description: 'per scenario and per check; null until completed' }),
  })
  .meta({ id: 'ConformanceCheck' });

export const conformanceHistorySchema = collection(conformanceCheckSummarySchema, 'ConformanceCheckList');
