import type { Db } from '../../../db/connection.js';
import { updateSuite } from '../../../db/evalSuites.js';
import { findHost } from '../../../db/hosts.js';
import type { Logger } from '../../ports/logger.js';
import { requireSuite, requireSuiteDetail, type SuiteDetail } from '../../access/suite.js';
import { requireServerSelection } from '../../evals/serverSelection.js';
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
export function editSuite(deps: { sql: Db; schedules: SuiteSchedules; log: Logger }) {
  return async function editSuite(input: {
    principal: Principal;
    projectId: string;
    suiteId: string;
    changes: SuiteEdit;
  }): Promise<SuiteDetail> {
    const { sql, schedules, log } = deps;
    const body = input.changes;
    const suite = await requireSuite(sql, input.principal, input);
    const servers = body.serverIds ? await requireServerSelection(sql, suite.projectId, body.serverIds) : undefined;
    if (body.hostId && !(await findHost(sql, suite.projectId, body.hostId)))
      throw notFound('host', { hostId: body.hostId });
    const updated = await updateSuite(sql, suite.projectId, suite.id, {
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
    const detail = await requireSuiteDetail(sql, updated.projectId, updated.id);
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
