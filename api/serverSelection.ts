import type { Db } from '../db/connection.js';
import type { SecretBox } from '../db/secretBox.js';
import { getSavedServersByIds, type SavedServer } from '../db/servers.js';
import { ApiError, notFound } from './errors.js';

/** The servers a suite or run names: all must be saved in the project and enabled. */
export async function requireServers(sql: Db, box: SecretBox, projectId: string, serverIds: string[]): Promise<SavedServer[]> {
  const unique = [...new Set(serverIds)];
  const servers = await getSavedServersByIds(sql, box, projectId, unique);
  const missing = unique.filter((id) => !servers.some((s) => s.id === id));
  if (missing.length > 0) throw notFound(`server ${missing.join(', ')}`, { serverIds: missing });
  const disabled = servers.filter((s) => !s.enabled);
  if (disabled.length > 0) {
    throw new ApiError('VALIDATION_ERROR', `server ${disabled.map((s) => s.name).join(', ')} is disabled`, { reason: 'SERVER_DISABLED', serverIds: disabled.map((s) => s.id) });
  }
  return unique.map((id) => servers.find((s) => s.id === id)!);
}
