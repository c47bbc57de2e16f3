import type { SuiteStore } from '../../ports/suiteStore.js';
import { requireVisibleProject } from '../../access/visibleProject.js';
import type { Principal } from '../../principal.js';
import type { SuiteWithStats } from '../../evals/suite.js';

/** A project's suites with their latest run, totals, pass-rate trend and schedule state. */
export function listSuites(deps: { suites: SuiteStore }) {
  return async function listSuites(input: { principal: Principal; projectId: string }): Promise<SuiteWithStats[]> {
    const project = await requireVisibleProject(deps.suites, input.principal, input.projectId);
    return await deps.suites.list(project.id);
  };
}

export type ListSuites = ReturnType<typeof listSuites>;
