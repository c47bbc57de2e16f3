import type { ServerDirectory, ServerRef } from '../ports/serverDirectory.js';
import { notFound, OperationFailure, refused } from '../failures.js';
import type { SavedServer } from '../catalog/server.js';

/** Where a caller finds the ids of a project's servers. */
export const serverListHint = (projectId: string) =>
  `GET /projects/${projectId}/servers lists the project's servers with their ids`;

/**
 * 404 for server ids the project does not have. A server's name is the usual mistake (`weather` is a well-formed id
 * too), so a missing id that is a server's name is answered with that server's id: it is never used in its place,
 * since a name may also be another server's id and names are not unique. `named`: the project's servers named as
 * the missing ids are (the caller reads them).
 */
export function unknownServers(
  projectId: string,
  missing: string[],
  named: ServerRef[],
  details: Record<string, unknown>,
): OperationFailure {
  const hints = missing.flatMap((name) => {
    const ids = named.filter((s) => s.name === name).map((s) => s.id);
    return ids.length === 0 ? [] : [`"${name}" is the name of server ${ids.join(' and ')}; use its id`];
  });
  const message = `server ${missing.join(', ')} not found: ${[...hints, serverListHint(projectId)].join('; ')}`;
  return new OperationFailure('NOT_FOUND', message, {
    ...details,
    ...(named.length > 0 && { namedServers: named.map((s) => ({ id: s.id, name: s.name })) }),
  });
}

/**
 * The servers a suite or run names, checked: all must be saved in the project and enabled. Reads ids, names and
 * the enabled flag only: checking that a server exists needs none of its secrets decrypted.
 */
export async function requireServerSelection(
  directory: Pick<ServerDirectory, 'serverRefs' | 'serversNamed'>,
  projectId: string,
  serverIds: string[],
): Promise<ServerRef[]> {
  const unique = [...new Set(serverIds)];
  const servers = await directory.serverRefs(projectId, unique);
  const missing = unique.filter((id) => !servers.some((s) => s.id === id));
  if (missing.length > 0) {
    const named = await directory.serversNamed(projectId, missing);
    throw unknownServers(projectId, missing, named, { serverIds: missing });
  }
  const disabled = servers.filter((s) => !s.enabled);
  if (disabled.length > 0) {
    throw refused(`server ${disabled.map((s) => s.name).join(', ')} is disabled`, {
      reason: 'SERVER_DISABLED',
      serverIds: disabled.map((s) => s.id),
    });
  }
  return unique.map((id) => servers.find((s) => s.id === id)!);
}

/**
 * The same servers, checked the same way, with their settings and secrets for what connects to them (tool
 * listing); decrypted only once the selection passed.
 */
export async function requireServers(
  directory: ServerDirectory,
  projectId: string,
  serverIds: string[],
): Promise<SavedServer[]> {
  const selected = await requireServerSelection(directory, projectId, serverIds);
  const servers = await directory.savedServers(
    projectId,
    selected.map((s) => s.id),
  );
  // A server deleted between the two reads is missing, as if it had been deleted just before.
  const gone = selected.filter((s) => !servers.some((saved) => saved.id === s.id)).map((s) => s.id);
  if (gone.length > 0) throw notFound(`server ${gone.join(', ')}`, { serverIds: gone });
  return selected.map((s) => servers.find((saved) => saved.id === s.id)!);
}
