import type { SuiteStore } from '../../ports/suiteStore.js';
import { requireVisibleProject } from '../../access/visibleProject.js';
import { requireSuiteDetail, type SuiteDetail } from '../../access/suite.js';
import type { Principal } from '../../principal.js';

/** One live suite with its schedule state and the names of its servers. */
export function getSuite(deps: { suites: SuiteStore }) {
  return async function getSuite(input: {
    principal: Principal;
    projectId: string;
    suiteId: string;
  }): Promise<SuiteDetail> {
    // The suite is read once, with its schedule state (requireSuite and then the detail would read it twice).
    const project = await requireVisibleProject(deps.suites, input.principal, input.projectId);
    return await requireSuiteDetail(deps.suites, project.id, input.suiteId);
  };
}

export type GetSuite = ReturnType<typeof getSuite>;
