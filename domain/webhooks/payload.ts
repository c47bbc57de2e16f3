import type { ConformanceCheck } from '../catalog/conformanceCheck.js';
import type { Run } from '../evals/run.js';
import { runEvent, type WebhookNotice } from './webhook.js';

/**
 * What a webhook says of an ended run or a completed check: the summary a dashboard or a chat message needs and links
 * to the API and the console. Built from named fields only, so nothing else of the run (its sealed model keys, its
 * client profile) can ever reach an endpoint.
 */

const iso = (date: Date | null) => date?.toISOString() ?? null;
const counts = (summary: Run['summary']) => ({
  total: summary?.total ?? 0,
  passed: summary?.passed ?? 0,
  failed: summary?.failed ?? 0,
});

/** `base` is the deployment's public origin (PUBLIC_URL), without a trailing slash. */
export function runNotice(
  run: Run,
  context: { suiteName: string | null; base: string; endedAt: Date },
): WebhookNotice | undefined {
  const event = runEvent(run.status);
  if (!event) return undefined;
  return {
    event,
    organizationId: run.organizationId,
    projectId: run.projectId,
    subjectId: run.id,
    occurredAt: context.endedAt,
    data: {
      runId: run.id,
      runNumber: run.runNumber,
      projectId: run.projectId,
      suite: { id: run.suiteId, name: context.suiteName },
      source: run.source,
      status: run.status,
      result: run.result,
      passRate: run.summary?.passRate ?? null,
      counts: counts(run.summary),
      error: run.error,
      createdAt: iso(run.createdAt),
      startedAt: iso(run.startedAt),
      completedAt: iso(run.completedAt ?? context.endedAt),
      links: {
        api: `${context.base}/api/v1/projects/${run.projectId}/eval-runs/${run.id}`,
        console: `${context.base}/console/#/projects/${run.projectId}/runs/${run.id}`,
      },
    },
  };
}

export function conformanceNotice(check: ConformanceCheck, context: { base: string }): WebhookNotice | undefined {
  if (check.status !== 'completed' || !check.report) return undefined;
  const score = check.report.score;
  return {
    event: 'conformance.completed',
    organizationId: check.organizationId,
    projectId: check.projectId,
    subjectId: check.id,
    occurredAt: check.finishedAt ?? new Date(),
    data: {
      checkId: check.id,
      projectId: check.projectId,
      serverId: check.serverId,
      specVersion: check.specVersion,
      status: check.status,
      score: score.value,
      passedScenarios: score.passedScenarios,
      scoredScenarios: score.scoredScenarios,
      passedChecks: score.passedChecks,
      failedChecks: score.failedChecks,
      suiteVersion: check.report.suiteVersion,
      createdAt: iso(check.createdAt),
      startedAt: iso(check.startedAt),
      finishedAt: iso(check.finishedAt),
      links: {
        api: `${context.base}/api/v1/projects/${check.projectId}/servers/${check.serverId}/conformance/${check.id}`,
        console: `${context.base}/console/#/projects/${check.projectId}/servers`,
      },
    },
  };
}
