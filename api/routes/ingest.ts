import {
  appendResults,
  finalizeIngestRun,
  reportRun,
  runOutcome,
  startIngestRun,
  type IngestRunInput,
} from '../../domain/ingest/runs.js';
import { openUploadSlot, UPLOAD_URL_TTL_MS } from '../../domain/ingest/uploads.js';
import { formatCount, limits } from '../../domain/limits.js';
import type { Principal } from '../../db/accounts.js';
import type { Tx } from '../../db/connection.js';
import { lockRun } from '../../db/ingestRuns.js';
import type { Project } from '../../db/projects.js';
import { requireProject } from '../../domain/access/project.js';
import type { RouteDeps } from '../app.js';
import { ApiError, notFound } from '../errors.js';
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
 * and 5xx: each one is a single transaction, and retries and concurrent duplicates are resolved by unique indexes
 * (externalRunId per project, externalIterationId per run) and the run's row lock, never by a read alone.
 * The same handlers answer at /sdk/v1/evals/... (ingestSdk.ts).
 */
export function ingestRoutes({ sql, config }: RouteDeps) {
  const runInput = (
    project: Project,
    principal: Principal,
    body: Omit<IngestRunInput, 'projectId' | 'organizationId' | 'keyId'>,
  ): IngestRunInput => ({
    ...body,
    projectId: project.id,
    organizationId: project.organizationId,
    keyId: principal.keyId,
  });
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
      response: finishedRunReply,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
      async handler({ principal, params, body }) {
        const project = await requireProject(sql, principal, params.projectId);
        const { results, ...run } = body;
        const finished = await sql.begin((tx) => reportRun(tx, runInput(project, principal, run), results));
        return { ok: true as const, ...runOutcome(finished) };
      },
    }),
    defineRoute({
      ...common,
      path: '/projects/:projectId/eval-ingest/runs/start',
      summary: 'Chunked upload: create the run named by externalRunId, or reuse it',
      description: bounds,
      body: ingestRunBody,
      response: startReply,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
      async handler({ principal, params, body }) {
        const project = await requireProject(sql, principal, params.projectId);
        const { run, reused } = await sql.begin((tx) => startIngestRun(tx, runInput(project, principal, body)));
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
        const project = await requireProject(sql, principal, params.projectId);
        const appended = await sql.begin(async (tx) => {
          const run = await lockIngestedRun(tx, project.id, { runId: body.runId });
          return await appendResults(tx, run, body.results);
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
        const project = await requireProject(sql, principal, params.projectId);
        const finished = await sql.begin(async (tx) => {
          const run = await lockIngestedRun(tx, project.id, { runId: body.runId, externalRunId: body.externalRunId });
          return await finalizeIngestRun(tx, run);
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
      response: uploadUrlReply,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
      async handler({ principal, params, body, req }) {
        const project = await requireProject(sql, principal, params.projectId);
        const { token, expiresAt } = await openUploadSlot(sql, {
          organizationId: project.organizationId,
          projectId: project.id,
          keyId: principal.keyId,
          format: body.format ?? null,
          suiteName: body.suiteName ?? null,
          externalRunId: body.externalRunId ?? null,
        });
        const origin = publicOrigin(config, req);
        return { ok: true as const, uploadUrl: `${origin}${uploadPath(token)}`, expiresAt: expiresAt.getTime() };
      },
    }),
  ];
}

/** The ingested run a chunked call names, locked for its transaction; a run Runway executed takes no reported results. */
async function lockIngestedRun(tx: Tx, projectId: string, ref: { runId?: string; externalRunId?: string }) {
  const run = await lockRun(tx, projectId, ref);
  if (!run) throw notFound('eval run', ref);
  if (run.externalRunId === null) {
    throw new ApiError(
      'CONFLICT',
      `run ${run.id} was executed by Runway, not reported; only runs created by runs/start take results`,
      { runId: run.id, reason: 'NOT_AN_INGESTED_RUN' },
    );
  }
  return run;
}
