import type { SuiteDetail as SuiteRead } from '../domain/access/suite.js';
import { scheduleView } from './scheduleView.js';
import type { SuiteDetail } from './schemas/suites.js';
import type { ScheduledSuite } from '../domain/evals/suite.js';

/**
 * How one suite looks on the wire (suiteDetailSchema). `servers` are the project's saved servers (any order, any
 * superset of the suite's): the suite lists the names of those it names, in its own order; a server deleted since
 * is left out.
 */
export function toSuiteDetail(
  suite: ScheduledSuite,
  servers: ReadonlyArray<{ id: string; name: string }>,
): SuiteDetail {
  const names = new Map(servers.map((s) => [s.id, s.name]));
  return {
    id: suite.id,
    name: suite.name,
    description: suite.description === '' ? null : suite.description,
    projectId: suite.projectId,
    environment: { servers: suite.serverIds.flatMap((serverId) => names.get(serverId) ?? []) },
    executionConfig:
      suite.defaultModel === null ? null : { model: suite.defaultModel, systemPrompt: null, temperature: null },
    hosts: [],
    settings: { passCriteria: suite.passCriteria, isolation: suite.iterationIsolation },
    schedule: scheduleView(suite),
    serverIds: suite.serverIds,
    passCriteria: suite.passCriteria,
    hostId: suite.hostId,
    isolation: suite.iterationIsolation,
    ...(suite.judgeModel !== null && { judgeModel: suite.judgeModel }),
    ...(suite.defaultModels && {
      models: suite.defaultModels.map((m) => ({ model: m.model, ...(m.provider && { provider: m.provider }) })),
    }),
    ...(suite.defaultBudget && { budget: suite.defaultBudget }),
    createdAt: suite.createdAt.getTime(),
    updatedAt: suite.updatedAt.getTime(),
  };
}

/** A suite read by a use case (requireSuiteDetail), on the wire. */
export const suiteDetailView = ({ suite, servers }: SuiteRead): SuiteDetail => toSuiteDetail(suite, servers);
