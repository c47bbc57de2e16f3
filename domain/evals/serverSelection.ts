import type { Db } from '../../db/connection.js';
import type { SecretBox } from '../../db/secretBox.js';
import { getSavedServersByIds, getServerRefsByIds, type SavedServer, type ServerRef } from '../../db/servers.js';
import { notFound, refused } from '../failures.js';

/**
 * The servers a suite or run names, checked: all must be saved in the project and enabled. Reads ids, names and
 * the enabled flag only: checking that a server exists needs none of its secrets decrypted.
 */
export async function requireServerSelection(sql: Db, projectId: string, serverIds: string[]): Promise<ServerRef[]> {
  const unique = [...new Set(serverIds)];
  const servers = await getServerRefsByIds(sql, projectId, unique);
  const missing = unique.filter((id) => !servers.some((s) => s.id === id));
  if (missing.length > 0) throw notFound(`server ${missing.join(', ')}`, { serverIds: missing });
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
  sql: Db,
  box: SecretBox,
  projectId: string,
  serverIds: string[],
): Promise<SavedServer[]> {
  const selected = await requireServerSelection(sql, projectId, serverIds);
  const servers = await getSavedServersByIds(
    sql,
    box,
    projectId,
    selected.map((s) => s.id),
  );
  // A server deleted between the two reads is missing, as if it had been deleted just before.
  const gone = selected.filter((s) => !servers.some((saved) => saved.id === s.id)).map((s) => s.id);
  if (gone.length > 0) throw notFound(`server ${gone.join(', ')}`, { serverIds: gone });
  return selected.map((s) => servers.find((saved) => saved.id === s.id)!);
}
