import { refused } from '../failures.js';
import { hostClientProfile, requireAllowedRoots } from '../mcp/index.js';
import type { HostStore } from '../ports/hostStore.js';
import { HeadersWithoutValueError, type GivenHostConfig } from './host.js';

/**
 * A host may only attach servers of its own project, and its roots must lie inside what those servers allow
 * (rootsFence.ts). A host is used with other servers too (a suite's, a run's): those are checked where it is used.
 */
export async function requireHostServers(
  hosts: Pick<HostStore, 'rootFences'>,
  projectId: string,
  config: GivenHostConfig,
): Promise<void> {
  if (!config.serverIds || config.serverIds.length === 0) return;
  const found = await hosts.rootFences(projectId, config.serverIds);
  const known = new Set(found.map((r) => r.id));
  const unknown = config.serverIds.filter((serverId) => !known.has(serverId));
  if (unknown.length > 0)
    throw refused(`config.serverIds: no such server in this project: ${unknown.join(', ')}`, {
      serverIds: unknown,
    });
  requireAllowedRoots(hostClientProfile(config), found);
}

/** A redaction marker for a header with no stored value is the caller's mistake: refused, naming the headers. */
export async function savingHost<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (error instanceof HeadersWithoutValueError)
      throw refused(`config.connectionDefaults.headers: ${error.message}`, { headers: error.names });
    throw error;
  }
}
