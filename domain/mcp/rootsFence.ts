import { posix } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { refused } from '../failures.js';
import type { ClientProfile, ClientRoot } from './clientProfile.js';
import type { SavedServer } from '../catalog/server.js';

/*
 * Roots are what the client offers a server: a filesystem server that honours them reads what they name, on the
 * machine it runs on. A stdio server runs on the service's own machine, so the roots a tenant's host lists for it
 * stay inside what the operator allowed that server (`server create|update --allowed-root`, and the roots of the
 * server's own client profile, which the operator set too); none by default. An HTTP or SSE server runs elsewhere and
 * cannot read this machine's disk through a root: to it a root is only a name, and it is not fenced.
 */

/** The server, as far as the fence reads it. */
export type FencedServer = Pick<SavedServer, 'id' | 'name' | 'transportType' | 'allowedRoots'>;

/**
 * The absolute, normalized path a `file:` URI names on this machine; undefined when it names none: not a file URI, a
 * remote host (`file://host/...`), an encoded `/` or a NUL byte. Dot segments (also percent-encoded ones),
 * percent-encoding, repeated and trailing slashes are resolved, so equal folders compare equal and `..` cannot climb
 * out of one. Symbolic links are not followed: a root is compared by name.
 */
export function rootPath(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'file:' || (url.hostname !== '' && url.hostname !== 'localhost')) return undefined;
  let path: string;
  try {
    path = fileURLToPath(url, { windows: false });
  } catch {
    return undefined;
  }
  if (path.includes('\0') || !path.startsWith('/')) return undefined;
  return posix.resolve(path);
}

/** Whether `path` is `folder` or lies below it (both normalized by rootPath). */
const inside = (path: string, folder: string) =>
  path === folder || path.startsWith(folder === '/' ? '/' : `${folder}/`);

/** Whether the fence applies to the server: it runs on this machine (stdio). */
export const fenced = (server: Pick<SavedServer, 'transportType'>) => server.transportType === 'stdio';

/**
 * A root as the server may be given it: its normalized URI when it lies inside one of the server's allowed roots (or
 * the server is not fenced: then as given), else undefined.
 */
export function allowedRoot(server: FencedServer, root: ClientRoot): ClientRoot | undefined {
  if (!fenced(server)) return root;
  const path = rootPath(root.uri);
  if (path === undefined) return undefined;
  const folders = server.allowedRoots.map(rootPath).filter((p): p is string => p !== undefined);
  if (!folders.some((folder) => inside(path, folder))) return undefined;
  // Declared as judged: the normalized path, not the spelling given.
  return { ...root, uri: pathToFileURL(path).href };
}

/**
 * The profile as it may be declared to the server: roots outside what the server allows are left out (the list is
 * still declared, so a server that replaces its own folders with the client's roots reads nothing it was not allowed).
 * This is where every profile meets its server (connection.ts), whichever way it came: a run, an operation, a warm
 * session.
 */
export function fenceProfile(server: FencedServer, profile: ClientProfile): ClientProfile {
  if (!profile.roots || !fenced(server)) return profile;
  const roots = profile.roots.map((root) => allowedRoot(server, root)).filter((r): r is ClientRoot => r !== undefined);
  return { ...profile, roots };
}

/**
 * Refuses (400 VALIDATION_ERROR, reason ROOT_NOT_ALLOWED) a profile that lists a root one of the servers it is
 * used with does not allow, naming the root and the server: where a tenant pairs a host with servers (a run, case
 * generation, a host that names its servers), before anything starts.
 */
export function requireAllowedRoots(profile: ClientProfile, servers: FencedServer[]): void {
  for (const server of servers) {
    for (const root of profile.roots ?? []) {
      if (allowedRoot(server, root)) continue;
      const allowed = server.allowedRoots.length > 0 ? server.allowedRoots.join(', ') : 'none';
      throw refused(
        `root ${root.uri} is outside what server '${server.name}' allows (${allowed}): a host's roots must lie inside ` +
          'the roots an operator allowed for a server on this machine (admin CLI: server update --allowed-root)',
        { reason: 'ROOT_NOT_ALLOWED', root: root.uri, serverId: server.id, allowedRoots: server.allowedRoots },
      );
    }
  }
}
