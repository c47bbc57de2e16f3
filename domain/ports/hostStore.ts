import type { Host, HostConfig } from '../catalog/host.js';
import type { Project } from '../catalog/project.js';
import type { FencedServer } from '../mcp/rootsFence.js';
import type { Principal } from '../principal.js';

/**
 * What the host stories (domain/useCases/catalog: list, get, create, edit, delete a host) need from storage, declared
 * here and implemented outside the domain (db/hostStore.ts). A host's header values are sealed and opened by the
 * store; what it returns shows them as the redaction marker.
 */

/** A new host, as written. */
export interface NewHost {
  projectId: string;
  name: string;
  /** the built-in template the config came from, if any */
  template: string | null;
  config: HostConfig;
}

/** Changes to a host: a field left undefined stays. */
export interface HostChanges {
  name?: string;
  /** replaces the config: a header given as the marker keeps its stored value, headers it leaves out are dropped */
  config?: HostConfig;
}

export interface HostStore {
  /** The project the key may see, by id (`default`: the organization's default project); undefined otherwise. */
  visibleProject(principal: Principal, projectId: string): Promise<Project | undefined>;
  /** The project's hosts, oldest first. */
  list(projectId: string): Promise<Host[]>;
  /** A host of the project. */
  find(projectId: string, hostId: string): Promise<Host | undefined>;
  /** A new host; HeadersWithoutValueError (domain/catalog/host.ts) when its config gives the marker for a header. */
  create(host: NewHost): Promise<Host>;
  /**
   * Applies the changes to a host of the project, in one transaction of its own; undefined when there is no such
   * host, HeadersWithoutValueError when the config gives the marker for a header with no stored value.
   */
  update(projectId: string, hostId: string, changes: HostChanges): Promise<Host | undefined>;
  /** Deletes a host of the project; false when there is no such host. */
  delete(projectId: string, hostId: string): Promise<boolean>;
  /** The project's servers of these ids (those it has), as a host's roots are checked against them; no secret opened. */
  rootFences(projectId: string, serverIds: string[]): Promise<FencedServer[]>;
}
