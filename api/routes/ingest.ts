import { runOutcome } from '../../domain/ingest/runs.js';
import { UPLOAD_URL_TTL_MS } from '../../domain/ingest/uploads.js';
import { formatCount, limits } from '../../domain/limits.js';
import type { AppendIngestResults } from '../../domain/useCases/ingest/appendIngestResults.js';
import type { CreateUploadUrl } from '../../domain/useCases/ingest/createUploadUrl.js';
import type { FinalizeIngestRun } from '../../domain/useCases/ingest/finalizeIngestRun.js';
import type { ReportIngestRun } from '../../domain/useCases/ingest/reportIngestRun.js';
import type { StartIngestRun } from '../../domain/useCases/ingest/startIngestRun.js';
import type { Config } from '../../runtime/config.js';
import { publicOrigin } from '../publicUrl.js';
import { defineRoute } from '../route.js';
import { projectParams } from '../schemas/common.js';
import {
  finalizeBody,
  finishedRunReply,
  INGEST_BODY_LIMIT,
  ingestRunBody,
  iterationsBody,
  iterationsReply,
  MAX_RESULTS_PER_CALL,
  reportBody,
  startReply,
  uploadUrlBody,
  uploadUrlReply,
} from '../schemas/ingest.js';
import { uploadPath } from './ingestUploads.js';

/**
 * Eval result ingestion (contract-notes "Eval ingest"). Every call is idempotent, because clients retry on 429
 * and 5xx: each one is a single transaction (its use case, domain/useCases/ingest), and retries and concurrent duplicates are resolved by unique indexes
 * (externalRunId per project, externalIterationId per run) and the run's row lock, never by a read alone.
 * The same handlers answer at /sdk/v1/evals/... (ingestSdk.ts).
 */
export function ingestRoutes(deps: {
  reportIngestRun: ReportIngestRun;
  startIngestRun: StartIngestRun;
  appendIngestResults: AppendIngestResults;
  finalizeIngestRun: FinalizeIngestRun;
  createUploadUrl: CreateUploadUrl;
  /** PUBLIC_URL: the origin upload URLs point at (else the request's) */
  config: Pick<Config, 'PUBLIC_URL'>;
}) {
  const common = { tag: 'Eval ingest', method: 'post', params: projectParams, bodyLimit: INGEST_BODY_LIMIT } as const;
  const bounds =
    `A run holds at most ${formatCount(limits.iterationsPerIngestedRun)} iterations and a suite at most ${formatCount(limits.casesPerSuite)} cases: results past either are a 400 ` +
    "VALIDATION_ERROR (details.reason TOO_MANY_ITERATIONS or TOO_MANY_CASES, details.limit) and none of the call's results is written.";

  return [
    defineRoute({
      ...common,
      path: '/projects/:projectId/eval-ingest/report',
      summary: 'One shot: save finished results as a completed run',
      description: `Up to ${MAX_RESULTS_PER_CALL} results. A known externalRunId returns its run as it is (a run still being uploaded in chunks gets these results and is finalized). ${bounds}`,
      body: reportBody,
      idempotent: true,
      response: finishedRunReply,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
      async handler({ principal, params, body }) {
        const { results, ...run } = body;
        const finished = await deps.reportIngestRun({ principal, projectId: params.projectId, run, results });
        return { ok: true as const, ...runOutcome(finished) };
      },
    }),
    defineRoute({
      ...common,
      path: '/projects/:projectId/eval-ingest/runs/start',
      summary: 'Chunked upload: create the run named by externalRunId, or reuse it',
      description: bounds,
      body: ingestRunBody,
      idempotent: true,
      response: startReply,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
      async handler({ principal, params, body }) {
        const { run, reused } = await deps.startIngestRun({ principal, projectId: params.projectId, run: body });
        const { summary, ...outcome } = runOutcome(run);
        return { ok: true as const, reused, ...outcome, ...(run.status !== 'running' && { summary }) };
      },
    }),
    defineRoute({
      ...common,
      path: '/projects/:projectId/eval-ingest/runs/iterations',
      summary: `Chunked upload: append up to ${MAX_RESULTS_PER_CALL} results; results already received are skipped`,
      description: bounds,
      body: iterationsBody,
      response: iterationsReply,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'CONFLICT'],
      async handler({ principal, params, body }) {
        const appended = await deps.appendIngestResults({
          principal,
          projectId: params.projectId,
          runId: body.runId,
          results: body.results,
        });
        return { ok: true as const, ...appended };
      },
    }),
    defineRoute({
      ...common,
      path: '/projects/:projectId/eval-ingest/runs/finalize',
      summary: 'Chunked upload: finalize the run (again: no change)',
      body: finalizeBody,
      response: finishedRunReply,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'CONFLICT'],
      async handler({ principal, params, body }) {
        const finished = await deps.finalizeIngestRun({
          principal,
          projectId: params.projectId,
          runId: body.runId,
          externalRunId: body.externalRunId,
        });
        return { ok: true as const, ...runOutcome(finished) };
      },
    }),
    defineRoute({
      ...common,
      path: '/projects/:projectId/eval-ingest/artifacts/upload-url',
      summary: 'Mint a single-use URL to upload an artifact to (JUnit XML, Jest JSON, Vitest JSON, or any blob)',
      description:
        `The URL is valid for ${UPLOAD_URL_TTL_MS / 60_000} minutes, once, while the key that minted it is, and needs no key. With a format, the upload is parsed into a finalized run ` +
        `(at most ${formatCount(limits.resultsPerArtifact)} tests per artifact).`,
      body: uploadUrlBody,
      idempotent: true,
      response: uploadUrlReply,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
      async handler({ principal, params, body, req }) {
        const { token, expiresAt } = await deps.createUploadUrl({
          principal,
          projectId: params.projectId,
          format: body.format ?? null,
          suiteName: body.suiteName ?? null,
          externalRunId: body.externalRunId ?? null,
        });
        const origin = publicOrigin(deps.config, req);
        return { ok: true as const, uploadUrl: `${origin}${uploadPath(token)}`, expiresAt: expiresAt.getTime() };
      },
    }),
  ];
}
