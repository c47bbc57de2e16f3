import type { Db } from '../../../db/connection.js';
import { listSuitesWithStats } from '../../../db/evalSuites.js';
import { requireProject } from '../../access/project.js';
import type { Principal } from '../../principal.js';
import type { SuiteWithStats } from '../../evals/suite.js';

/** A project's suites with their latest run, totals, pass-rate trend and schedule state. */
export function listSuites(deps: { sql: Db }) {
  return async function listSuites(input: { principal: Principal; projectId: string }): Promise<SuiteWithStats[]> {
    const project = await requireProject(deps.sql, input.principal, input.projectId);
    return await listSuitesWithStats(deps.sql, project.id);
  };
}

export type ListSuites = ReturnType<typeof listSuites>;
