import type { SavedServer } from '../catalog/server.js';

/** A saved server as a selection names it: enough to check it exists and is enabled, with no secret opened. */
export interface ServerRef {
  id: string;
  name: string;
  enabled: boolean;
}

/**
 * The servers a suite names, checked as a run's are (domain/evals/serverSelection.ts): all saved in the project and
 * enabled, else NOT_FOUND (with the id of a server named by its name) or SERVER_DISABLED. Each composition root binds
 * it to its storage (runtime/suiteServers.ts).
 */
export interface SuiteServers {
  /** The servers of these ids, checked, in the order given (duplicates once); no secret opened. */
  requireSelection(projectId: string, serverIds: string[]): Promise<ServerRef[]>;
  /** The same servers, checked the same way, with their settings and secrets opened for what connects to them. */
  requireServers(projectId: string, serverIds: string[]): Promise<SavedServer[]>;
}
