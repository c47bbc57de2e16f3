import type { ListedServer, ProtocolEraName, SavedServer } from '../catalog/server.js';
import type { Project } from '../catalog/project.js';
import type { Principal } from '../principal.js';
import type { ServerDirectory } from './serverDirectory.js';

/**
 * What the stories on saved servers (domain/useCases/catalog: listing a project's servers, running an operation on
 * one, closing a tunnel) and the MCP client (domain/mcp/operations.ts, recording the protocol a server speaks) need
 * from storage, declared here and implemented outside the domain (db/serverStore.ts).
 */

/** A saved server as found for an operation: what its checks read, its secrets sealed until `open()`. */
export interface FoundServer {
  id: string;
  name: string;
  enabled: boolean;
  /** the server with its settings and secrets opened, for what connects to it */
  open(): SavedServer;
}

/** A server of a project the key may see, looked up in one statement (the project's access rule and the server). */
export interface ServerInVisibleProject {
  /** false when the key may not see the project (or it does not exist) */
  projectVisible: boolean;
  /** the visible project's id (what `default` names) */
  projectId?: string;
  /** undefined when the project has no such server */
  server?: FoundServer;
}

/** The servers named so: the same read as the run's and the suites' checks (ServerDirectory). */
export interface ServerStore extends Pick<ServerDirectory, 'serversNamed'> {
  /** The project the key may see, by id (`default`: the organization's default project); undefined otherwise. */
  visibleProject(principal: Principal, projectId: string): Promise<Project | undefined>;
  /** The project's saved servers, oldest first, without their secrets. */
  list(projectId: string): Promise<ListedServer[]>;
  /** A server of a project the key may see, in one statement: this is on every tools/call. */
  findInVisibleProject(principal: Principal, projectId: string, serverId: string): Promise<ServerInVisibleProject>;
  /**
   * Records the protocol a server spoke when a session opened, when it differs from what is stored: neither its
   * revision (its sessions stay) nor its updated_at (an operator's edits) change.
   */
  recordProtocol(serverId: string, protocol: { era: ProtocolEraName; version: string }): Promise<void>;
}
