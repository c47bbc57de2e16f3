import type { z } from 'zod';
import type { createSuiteBody } from '../../../api/schemas/evals.js';
import { inTransaction, type Db } from '../../../db/connection.js';
import { createSuite as insertSuite, upsertCases, type CaseUpsert } from '../../../db/evalSuites.js';
import { findHost } from '../../../db/hosts.js';
import type { SecretBox } from '../../../db/secretBox.js';
import { requireProject } from '../../access/project.js';
import { checkExpectedTools, type UnknownToolWarning } from '../../evals/expectedTools.js';
import { requireServers } from '../../evals/serverSelection.js';
import { notFound, refused } from '../../failures.js';
import type { McpOperations } from '../../mcp/index.js';
import type { Principal } from '../../principal.js';

export type NewSuiteInput = z.infer<typeof createSuiteBody>;

export interface CreatedSuite {
  suiteId: string;
  name: string;
  servers: { id: string; name: string }[];
  caseUpsert: CaseUpsert;
  /** expected tools no server of the suite lists: advice, never a refusal */
  warnings: UnknownToolWarning[];
}

/**
 * Authors a suite with its cases, in one transaction: a new suite none of whose cases could be saved is not kept
 * (as in the real product). Expected tools no server has are checked while the suite is written.
 */
export function createSuite(deps: { sql: Db; box: SecretBox; mcp: McpOperations }) {
  return async function createSuite(input: {
    principal: Principal;
    projectId: string;
    suite: NewSuiteInput;
  }): Promise<CreatedSuite> {
    const { sql, box, mcp } = deps;
    const body = input.suite;
    const project = await requireProject(sql, input.principal, input.projectId);
    const servers = await requireServers(sql, box, project.id, body.serverIds);
    if (body.hostId && !(await findHost(sql, project.id, body.hostId))) throw notFound('host', { hostId: body.hostId });
    const checked = checkExpectedTools(
      mcp,
      servers,
      body.tests.map((t) => ({ title: t.title, expectedToolCalls: t.expectedToolCalls })),
    );
    // Awaited below in any case, so a refusal does not leave it rejected unobserved.
    checked.catch(() => undefined);
    const created = await inTransaction(sql, async (tx) => {
      const suite = await insertSuite(tx, {
        projectId: project.id,
        name: body.name,
        description: body.description,
        serverIds: servers.map((s) => s.id),
        defaultModel: body.model,
        defaultModels: body.models,
        defaultBudget: body.budget,
        passCriteria: body.passCriteria,
        source: 'api',
        hostId: body.hostId,
        iterationIsolation: body.isolation,
        judgeModel: body.judgeModel,
      });
      const caseUpsert = await upsertCases(
        tx,
        suite.id,
        body.tests.map((t) => ({ ...t, provider: t.provider ?? body.provider })),
      );
      if (caseUpsert.committed.length === 0)
        throw refused('none of the tests could be saved, so no suite was created: see details.failed', {
          failed: caseUpsert.failed,
        });
      return {
        suiteId: suite.id,
        name: suite.name,
        servers: servers.map((s) => ({ id: s.id, name: s.name })),
        caseUpsert,
      };
    });
    return { ...created, warnings: await checked };
  };
}

export type CreateSuite = ReturnType<typeof createSuite>;
