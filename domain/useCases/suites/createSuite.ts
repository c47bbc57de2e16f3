import type { ServerDirectory } from '../../ports/serverDirectory.js';
import { requireServers } from '../../evals/serverSelection.js';
import type { SuiteStore } from '../../ports/suiteStore.js';
import { requireVisibleProject } from '../../access/visibleProject.js';
import { checkExpectedTools, type UnknownToolWarning } from '../../evals/expectedTools.js';
import { notFound, refused } from '../../failures.js';
import type { McpOperations } from '../../mcp/index.js';
import type { Principal } from '../../principal.js';
import type { IterationIsolation } from '../../catalog/server.js';
import type { CaseInput, CaseUpsert } from '../../evals/case.js';
import type { PassCriteria, RunBudget } from '../../evals/run.js';
import type { JudgeModel, ModelChoice } from '../../evals/suite.js';

/**
 * A new suite as its author gives it, with its cases: what the story reads of a request body the edge checked (the
 * HTTP body, api/schemas createSuiteBody, fits it).
 */
export interface NewSuiteInput {
  name: string;
  description?: string;
  serverIds: string[];
  /** the default model of its cases */
  model: string;
  /** several default models (`model` is the first) */
  models?: ModelChoice[];
  /** the budget of a run of the suite that gives none */
  budget?: RunBudget;
  /** the provider of the cases that name none */
  provider?: string;
  judgeModel?: JudgeModel;
  /** its cases: at least one must be saved, or no suite is created */
  tests: CaseInput[];
  passCriteria?: PassCriteria;
  /** a host of the project, whose client profile its runs declare */
  hostId?: string;
  isolation?: IterationIsolation;
}

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
export function createSuite(deps: { suites: SuiteStore; servers: ServerDirectory; mcp: McpOperations }) {
  return async function createSuite(input: {
    principal: Principal;
    projectId: string;
    suite: NewSuiteInput;
  }): Promise<CreatedSuite> {
    const { suites, mcp } = deps;
    const body = input.suite;
    const project = await requireVisibleProject(suites, input.principal, input.projectId);
    const servers = await requireServers(deps.servers, project.id, body.serverIds);
    if (body.hostId && !(await suites.host(project.id, body.hostId))) throw notFound('host', { hostId: body.hostId });
    const checked = checkExpectedTools(
      mcp,
      servers,
      body.tests.map((t) => ({ title: t.title, expectedToolCalls: t.expectedToolCalls })),
    );
    // Awaited below in any case, so a refusal does not leave it rejected unobserved.
    checked.catch(() => undefined);
    const created = await suites.transaction(async (tx) => {
      const suite = await tx.create({
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
      const caseUpsert = await tx.upsertCases(
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
