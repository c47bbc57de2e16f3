import type { Db } from '../db/connection.js';
import { createServerDirectory } from '../db/serverDirectory.js';
import { requireServers, requireServerSelection } from '../domain/evals/serverSelection.js';
import type { SecretBox } from '../domain/ports/secretBox.js';
import type { SuiteServers } from '../domain/ports/suiteServers.js';

/**
 * The suites' server checks (domain/ports/suiteServers.ts) on this process's database: the checks a run's servers
 * pass (domain/evals/serverSelection.ts), reading the project's saved servers (db/serverDirectory.ts).
 */
export function createSuiteServers(sql: Db, box: SecretBox): SuiteServers {
  const directory = createServerDirectory(sql, box);
  return {
    requireSelection: (projectId, serverIds) => requireServerSelection(directory, projectId, serverIds),
    requireServers: (projectId, serverIds) => requireServers(directory, projectId, serverIds),
  };
}
