import type { Logger } from '../../ports/logger.js';
import type { ServerDirectory } from '../../ports/serverDirectory.js';
import { requireServerSelection } from '../../evals/serverSelection.js';
import type { SuiteStore } from '../../ports/suiteStore.js';
import { requireSuite, requireSuiteDetail, type SuiteDetail } from '../../access/suite.js';
import { notFound } from '../../failures.js';
import type { SuiteSchedules } from '../../ports/suiteSchedules.js';
import type { Principal } from '../../principal.js';
import type { IterationIsolation } from '../../catalog/server.js';
import type { PassCriteria, RunBudget } from '../../evals/run.js';
import type { JudgeModel, ModelChoice } from '../../evals/suite.js';

/**
 * The changes to a suite its author asks for: a field left out stays as it is, null clears it (the HTTP body,
 * api/schemas updateSuiteBody, fits it).
 */
export interface SuiteEdit {
  name?: string;
  description?: string | null;
  serverIds?: string[];
  /** the default model of its cases */
  model?: string | null;
  /** a list also sets `model` to its first; null clears the list */
  models?: ModelChoice[] | null;
  /** the budget of a run of the suite that gives none */
  budget?: RunBudget | null;
  passCriteria?: PassCriteria;
  hostId?: string | null;
  isolation?: IterationIsolation;
  judgeModel?: JudgeModel | null;
}

/**
 * Edits a suite (runs started later use the edit). A renamed suite's schedule is told its new name (its note and
 * memo where it fires); cosmetic, so a schedule service that cannot be reached now leaves the old name there rather
 * than failing the edit.
 */
export function editSuite(deps: {
  suites: SuiteStore;
  servers: ServerDirectory;
  schedules: SuiteSchedules;
  log: Logger;
}) {
  return async function editSuite(input: {
    principal: Principal;
    projectId: string;
    suiteId: string;
    changes: SuiteEdit;
  }): Promise<SuiteDetail> {
    const { suites, schedules, log } = deps;
    const body = input.changes;
    const suite = await requireSuite(suites, input.principal, input);
    const servers = body.serverIds
      ? await requireServerSelection(deps.servers, suite.projectId, body.serverIds)
      : undefined;
    if (body.hostId && !(await suites.host(suite.projectId, body.hostId)))
      throw notFound('host', { hostId: body.hostId });
    const updated = await suites.update(suite.projectId, suite.id, {
      name: body.name,
      description: body.description === null ? '' : body.description,
      serverIds: servers?.map((s) => s.id),
      defaultModel: body.model,
      defaultModels: body.models,
      defaultBudget: body.budget,
      passCriteria: body.passCriteria,
      hostId: body.hostId,
      iterationIsolation: body.isolation,
      judgeModel: body.judgeModel,
    });
    if (!updated) throw notFound('eval suite', { suiteId: input.suiteId });
    const detail = await requireSuiteDetail(suites, updated.projectId, updated.id);
    const interval = detail.suite.scheduleIntervalMinutes;
    if (body.name !== undefined && body.name !== suite.name && interval !== null) {
      await schedules
        .apply({
          suiteId: suite.id,
          suiteName: updated.name,
          projectId: suite.projectId,
          organizationId: input.principal.organizationId,
          enabled: detail.suite.scheduleEnabled,
          intervalMinutes: interval,
        })
        .catch((error: unknown) =>
          log.warn({ err: error, suiteId: suite.id }, 'could not rename the suite in its Temporal Schedule'),
        );
    }
    return detail;
  };
}

export type EditSuite = ReturnType<typeof editSuite>;
