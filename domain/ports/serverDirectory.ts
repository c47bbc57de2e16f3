import type { SavedServer } from '../catalog/server.js';

/** A saved server as a selection names it: enough to check it exists and is enabled, with no secret opened. */
export interface ServerRef {
  id: string;
  name: string;
  enabled: boolean;
}

/**
 * What checking the servers a run or suite names reads (domain/evals/serverSelection.ts), declared here and
 * implemented outside the domain (db/serverDirectory.ts): a project's saved servers by id or name.
 */
export interface ServerDirectory {
  /** The project's servers of these ids (those it has, in no particular order), no secret opened. */
  serverRefs(projectId: string, serverIds: string[]): Promise<ServerRef[]>;
  /** The project's servers named so (a name is what a caller may pass where an id is expected), oldest first. */
  serversNamed(projectId: string, names: string[]): Promise<ServerRef[]>;
  /** The project's servers of these ids (those it has, in no particular order), settings and secrets opened. */
  savedServers(projectId: string, serverIds: string[]): Promise<SavedServer[]>;
}
