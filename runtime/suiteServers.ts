import type { Db } from '../db/connection.js';
import { requireServers, requireServerSelection } from '../domain/evals/serverSelection.js';
import type { SecretBox } from '../domain/ports/secretBox.js';
import type { SuiteServers } from '../domain/ports/suiteServers.js';

/**
 * The suites' server checks (domain/ports/suiteServers.ts) on this process's database: the checks a run's servers
 * pass (domain/evals/serverSelection.ts), which still read the servers' table themselves.
 */
export function createSuiteServers(sql: Db, box: SecretBox): SuiteServers {
  return {
    requireSelection: (projectId, serverIds) => requireServerSelection(sql, projectId, serverIds),
    requireServers: (projectId, serverIds) => requireServers(sql, box, projectId, serverIds),
  };
}
