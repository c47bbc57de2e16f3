import type { OAuthTokenStore } from '../domain/ports/oauthTokenStore.js';
import type { SecretBox } from '../domain/ports/secretBox.js';
import type { Db } from './connection.js';
import {
  claimRefresh,
  getStoredTokens,
  getTokenHealth,
  openMachineGrant,
  recordRefreshError,
  refreshState,
  saveImportedTokens,
  saveRefreshedTokens,
} from './oauthTokens.js';

/**
 * The servers' OAuth grants (domain/ports/oauthTokenStore.ts) on a pool: the queries of oauthTokens.ts. `box` seals
 * and opens the tokens and client secrets.
 */
export function createOAuthTokenStore(sql: Db, box: SecretBox): OAuthTokenStore {
  return {
    find: (serverId) => getStoredTokens(sql, box, serverId),
    health: (serverId) => getTokenHealth(sql, serverId),
    saveImported: (tokens) => saveImportedTokens(sql, box, tokens),
    openMachineGrant: (serverId, serverUrl) => openMachineGrant(sql, serverId, serverUrl),
    claimRefresh: (serverId, generation, owner, leaseMs) => claimRefresh(sql, serverId, generation, owner, leaseMs),
    refreshState: (serverId) => refreshState(sql, serverId),
    saveRefreshed: (lease, tokens, used) => saveRefreshedTokens(sql, box, lease, tokens, used),
    recordRefreshError: (grant, code) => recordRefreshError(sql, grant, code),
  };
}
