import type {
  IterationIsolation,
  OAuthGrant,
  ProtocolEraName,
  SavedServer,
  ServerProtocol,
  ServerTimeouts,
  TransportType,
} from '../domain/catalog/server.js';
import type { ClientProfile } from '../domain/mcp/clientProfile.js';
import type { Principal } from '../domain/principal.js';
import type { Db, Sql } from './connection.js';
import { newId } from '../domain/ids.js';
import { visibleProject } from './projects.js';
import { camelRow, camelRows, type Camel } from './rows.js';
import type { SecretBox } from '../domain/ports/secretBox.js';
import type { ServerRef } from '../domain/ports/serverDirectory.js';

export interface ServerInput {
  projectId: string;
  name: string;
  transportType: TransportType;
  url?: string | null;
  command?: string | null;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string | null;
  headers?: Record<string, string>;
  useOAuth?: boolean;
  oauthScopes?: string[];
  oauthClientId?: string | null;
  clientSecret?: string | null;
  authorizationServerUrl?: string | null;
  oauthGrant?: OAuthGrant;
  privateKey?: string | null;
  signingAlg?: string | null;
  timeouts?: ServerTimeouts;
  clientProfile?: ClientProfile | null;
  /** stdio: the file:// roots a tenant's host may declare to it (normalized); default none */
  allowedRoots?: string[];
  enabled?: boolean;
}

interface ServerRow {
  id: string;
  project_id: string;
  name: string;
  enabled: boolean;
  transport_type: TransportType;
  url: string | null;
  command: string | null;
  args: string[];
  env_enc: string | null;
  cwd: string | null;
  headers_enc: string | null;
  use_oauth: boolean;
  oauth_scopes: string[];
  oauth_client_id: string | null;
  client_secret_enc: string | null;
  authorization_server_url: string | null;
  oauth_grant: OAuthGrant;
  oauth_private_key_enc: string | null;
  oauth_signing_alg: string | null;
  timeouts: ServerTimeouts;
  iteration_isolation: IterationIsolation | null;
  client_profile: ClientProfile | null;
  allowed_roots: string[];
  protocol_era: ProtocolEraName | null;
  protocol_version: string | null;
  protocol_seen_at: Date | null;
  /** of its project, joined in by the queries that read whole servers (serverRows) */
  organization_id: string;
  revision: number;
  created_at: Date;
  updated_at: Date;
}

/**
 * A saved server as stored: its secrets still sealed (envEnc, headersEnc, clientSecretEnc, oauthPrivateKeyEnc).
 * Enough to find, list and check it; toSavedServer opens it for what connects to it.
 */
export type StoredServer = Camel<ServerRow>;

const encryptMap = (box: SecretBox, value: Record<string, string> | undefined) =>
  value && Object.keys(value).length > 0 ? box.encryptJson(value) : null;

export async function createServer(sql: Db, box: SecretBox, input: ServerInput) {
  const [row] = await sql<{ id: string; name: string; transport_type: TransportType }[]>`
    INSERT INTO servers (id, project_id, name, enabled, transport_type, url, command, args, env_enc, cwd, headers_enc,
                         use_oauth, oauth_scopes, oauth_client_id, client_secret_enc, authorization_server_url,
                         oauth_grant, oauth_private_key_enc, oauth_signing_alg, timeouts, client_profile, allowed_roots)
    VALUES (${newId('srv')}, ${input.projectId}, ${input.name}, ${input.enabled ?? true}, ${input.transportType},
            ${input.url ?? null}, ${input.command ?? null}, ${sql.json(input.args ?? [])}, ${encryptMap(box, input.env)},
            ${input.cwd ?? null}, ${encryptMap(box, input.headers)}, ${input.useOAuth ?? false}, ${input.oauthScopes ?? []},
            ${input.oauthClientId ?? null}, ${input.clientSecret ? box.encrypt(input.clientSecret) : null},
            ${input.authorizationServerUrl ?? null}, ${input.oauthGrant ?? 'caller'},
            ${input.privateKey ? box.encrypt(input.privateKey) : null}, ${input.signingAlg ?? null},
            ${sql.json((input.timeouts ?? {}) as Record<string, number>)},
            ${input.clientProfile ? sql.json(input.clientProfile as never) : null}, ${input.allowedRoots ?? []})
    RETURNING id, name, transport_type`;
  return { id: row.id, name: row.name, transportType: row.transport_type };
}

/** The OAuth client fields of a saved server, as an operator sets them (admin CLI). */
export type OAuthClientConfig = Pick<
  SavedServer,
  'transportType' | 'oauthGrant' | 'oauthClientId' | 'clientSecret' | 'privateKey' | 'signingAlg'
>;

/**
 * What is wrong with a server's OAuth client configuration, in the operator's words; undefined when nothing is.
 * (The table's constraints say the same; this says it before a write, and clearly.)
 */
export function oauthClientProblem(config: OAuthClientConfig): string | undefined {
  if (config.privateKey && config.oauthGrant !== 'client_credentials')
    return 'a private key is used only with the client_credentials grant';
  if (config.oauthGrant !== 'client_credentials') return undefined;
  if (config.transportType === 'stdio') return 'the client_credentials grant applies to http and sse servers only';
  if (!config.oauthClientId) return 'the client_credentials grant needs a client id';
  if (config.clientSecret && config.privateKey) return 'give the client a secret or a private key, not both';
  if (!config.clientSecret && !config.privateKey)
    return 'the client_credentials grant needs a client secret or a private key (private_key_jwt)';
  return undefined;
}

/** Changes to a server's OAuth client; a field left out stays as it is. */
export interface OAuthClientChanges {
  oauthGrant?: OAuthGrant;
  oauthClientId?: string;
  /** null removes it */
  clientSecret?: string | null;
  /** null removes it (and its algorithm) */
  privateKey?: { pem: string; alg: string } | null;
  oauthScopes?: string[];
}

/**
 * An operator changes how a server's OAuth tokens are obtained. When the server gets its tokens itself (before or
 * after the change), its current grant is forgotten: tokens issued to the old client or for the old scopes are not
 * used again, and the next call obtains new ones. Undefined: no such server. Throws on an invalid result.
 */
export async function updateOAuthClient(sql: Sql, box: SecretBox, serverId: string, changes: OAuthClientChanges) {
  return await sql.begin(async (tx) => {
    const [row] = await tx<ServerRow[]>`
      SELECT s.*, p.organization_id FROM servers s JOIN projects p ON p.id = s.project_id
      WHERE s.id = ${serverId} FOR UPDATE OF s`;
    if (!row) return undefined;
    const current = toSavedServer(box, camelRow(row));
    const next: OAuthClientConfig & { oauthScopes: string[] } = {
      transportType: current.transportType,
      oauthGrant: changes.oauthGrant ?? current.oauthGrant,
      oauthClientId: changes.oauthClientId ?? current.oauthClientId,
      clientSecret: changes.clientSecret !== undefined ? changes.clientSecret : current.clientSecret,
      privateKey: changes.privateKey !== undefined ? (changes.privateKey?.pem ?? null) : current.privateKey,
      signingAlg: changes.privateKey !== undefined ? (changes.privateKey?.alg ?? null) : current.signingAlg,
      oauthScopes: changes.oauthScopes ?? current.oauthScopes,
    };
    const problem = oauthClientProblem(next);
    if (problem) throw new Error(problem);
    const machine = next.oauthGrant === 'client_credentials';
    await tx`
      UPDATE servers SET
        oauth_grant = ${next.oauthGrant}, oauth_client_id = ${next.oauthClientId},
        client_secret_enc = ${next.clientSecret ? box.encrypt(next.clientSecret) : null},
        oauth_private_key_enc = ${next.privateKey ? box.encrypt(next.privateKey) : null}, oauth_signing_alg = ${next.signingAlg},
        oauth_scopes = ${next.oauthScopes}, use_oauth = use_oauth OR ${machine},
        revision = revision + 1, updated_at = clock_timestamp()
      WHERE id = ${serverId}`;
    if (machine || current.oauthGrant === 'client_credentials')
      await tx`DELETE FROM oauth_tokens WHERE server_id = ${serverId}`;
    return {
      id: current.id,
      name: current.name,
      oauthGrant: next.oauthGrant,
      oauthClientId: next.oauthClientId,
      clientAuthentication: next.privateKey
        ? `private_key_jwt (${next.signingAlg})`
        : next.clientSecret
          ? 'client_secret'
          : 'none',
      oauthScopes: next.oauthScopes,
    };
  });
}

/**
 * An operator sets (or, with null, clears) the authorization server of a saved server. Grants already imported
 * lose their pinned authorization server, so their next refresh goes to this one. Undefined: no such server.
 */
export async function setAuthorizationServer(
  sql: Db,
  serverId: string,
  url: string | null,
): Promise<{ id: string; name: string; authorizationServerUrl: string | null } | undefined> {
  const [row] = await sql<{ id: string; name: string; authorization_server_url: string | null }[]>`
    WITH server AS (
      UPDATE servers SET authorization_server_url = ${url}, revision = revision + 1, updated_at = clock_timestamp()
      WHERE id = ${serverId} RETURNING id, name, authorization_server_url
    ), unpinned AS (
      UPDATE oauth_tokens SET authorization_server_url = NULL, updated_at = clock_timestamp() WHERE server_id IN (SELECT id FROM server)
    )
    SELECT * FROM server`;
  if (!row) return undefined;
  return { id: row.id, name: row.name, authorizationServerUrl: row.authorization_server_url };
}

/** What an operator sees and changes of a saved server with `server update`. */
export interface ServerSettings {
  id: string;
  name: string;
  transportType: TransportType;
  authorizationServerUrl: string | null;
  cwd: string | null;
  timeouts: ServerTimeouts;
  iterationIsolation: IterationIsolation | null;
  /** stdio: the file:// roots a tenant's host may declare to it (besides those of its own client profile) */
  allowedRoots: string[];
}

export interface SettingsChange {
  /** a string sets it, null forgets it (the server's own directory again), undefined leaves it */
  cwd?: string | null;
  /** forget every per-server timeout first (the service's defaults apply again) */
  clearTimeouts?: boolean;
  /** merged into the saved ones */
  timeouts?: ServerTimeouts;
  /** a value sets it, null gives the choice back to the suites, undefined leaves it */
  iterationIsolation?: IterationIsolation | null;
  /** replaces the allowed roots ([] allows none), undefined leaves them */
  allowedRoots?: string[];
}

/**
 * An operator changes a saved server's working directory and timeouts. The revision moves on, so the next operation
 * gets a session started with the new settings. False: no such server.
 */
export async function updateServerSettings(sql: Db, serverId: string, change: SettingsChange): Promise<boolean> {
  const setCwd = change.cwd !== undefined;
  const setIsolation = change.iterationIsolation !== undefined;
  try {
    const rows = await sql`
      UPDATE servers SET
        cwd = CASE WHEN ${setCwd}::boolean THEN ${change.cwd ?? null}::text ELSE cwd END,
        timeouts = (CASE WHEN ${change.clearTimeouts ?? false}::boolean THEN '{}'::jsonb ELSE timeouts END) || ${sql.json((change.timeouts ?? {}) as Record<string, number>)}::jsonb,
        iteration_isolation = CASE WHEN ${setIsolation}::boolean THEN ${change.iterationIsolation ?? null}::text ELSE iteration_isolation END,
        allowed_roots = CASE WHEN ${change.allowedRoots !== undefined}::boolean THEN ${change.allowedRoots ?? []}::text[] ELSE allowed_roots END,
        revision = revision + 1, updated_at = clock_timestamp()
      WHERE id = ${serverId}
      RETURNING id`;
    return rows.length > 0;
  } catch (error) {
    if ((error as { constraint_name?: string }).constraint_name === 'servers_cwd_stdio_absolute') {
      throw new Error('a working directory (cwd) is for stdio servers only, and must be an absolute path');
    }
    if ((error as { constraint_name?: string }).constraint_name === 'servers_allowed_roots_stdio') {
      throw new Error("allowed roots are for stdio servers only (a remote server's roots are only names)");
    }
    throw error;
  }
}

export async function getServerSettings(sql: Db, serverId: string): Promise<ServerSettings | undefined> {
  const [row] = await sql<
    Pick<
      ServerRow,
      | 'id'
      | 'name'
      | 'transport_type'
      | 'authorization_server_url'
      | 'cwd'
      | 'timeouts'
      | 'iteration_isolation'
      | 'allowed_roots'
    >[]
  >`
    SELECT id, name, transport_type, authorization_server_url, cwd, timeouts, iteration_isolation, allowed_roots
    FROM servers WHERE id = ${serverId}`;
  if (!row) return undefined;
  return {
    id: row.id,
    name: row.name,
    transportType: row.transport_type,
    authorizationServerUrl: row.authorization_server_url,
    cwd: row.cwd,
    timeouts: row.timeouts,
    iterationIsolation: row.iteration_isolation,
    allowedRoots: row.allowed_roots,
  };
}

/**
 * An operator sets (or, with null, clears) a saved server's client profile. The revision changes, so sessions opened
 * with the old profile are replaced. Undefined: no such server.
 */
export async function setClientProfile(
  sql: Db,
  serverId: string,
  profile: ClientProfile | null,
): Promise<{ id: string; name: string; clientProfile: ClientProfile } | undefined> {
  const [row] = await sql<{ id: string; name: string; client_profile: ClientProfile | null }[]>`
    UPDATE servers SET client_profile = ${profile ? sql.json(profile as never) : null}, revision = revision + 1, updated_at = clock_timestamp()
    WHERE id = ${serverId} RETURNING id, name, client_profile`;
  if (!row) return undefined;
  return { id: row.id, name: row.name, clientProfile: row.client_profile ?? {} };
}

export async function listStoredServers(sql: Db, projectId: string): Promise<StoredServer[]> {
  return camelRows(
    await sql<ServerRow[]>`
      SELECT s.*, p.organization_id FROM servers s JOIN projects p ON p.id = s.project_id
      WHERE s.project_id = ${projectId} ORDER BY s.created_at, s.id`,
  );
}

/**
 * A server of a project the key may see (projects.ts has the rule), in one statement: `projectVisible` false when
 * the project is not visible (or does not exist), `server` undefined when the project has no such server. Its
 * secrets stay sealed: finding it is a check, and only what connects to it opens them (toSavedServer).
 */
export async function findServerInVisibleProject(
  sql: Db,
  principal: Principal,
  projectId: string,
  serverId: string,
): Promise<{ projectVisible: boolean; projectId?: string; server?: StoredServer }> {
  const [row] = await sql<(ServerRow & { visible_project_id: string })[]>`
    WITH project AS (${visibleProject(sql, principal, projectId)})
    SELECT project.id AS visible_project_id, s.*, project.organization_id
    FROM project LEFT JOIN servers s ON s.project_id = project.id AND s.id = ${serverId}`;
  if (!row) return { projectVisible: false };
  return {
    projectVisible: true,
    projectId: row.visible_project_id,
    server: row.id === null ? undefined : camelRow(row),
  };
}

/** The project's servers of these ids, their secrets sealed. */
export async function getStoredServersByIds(sql: Db, projectId: string, ids: string[]): Promise<StoredServer[]> {
  return camelRows(
    await sql<ServerRow[]>`
      SELECT s.*, p.organization_id FROM servers s JOIN projects p ON p.id = s.project_id
      WHERE s.project_id = ${projectId} AND s.id = ANY(${ids})`,
  );
}

export async function getSavedServersByIds(
  sql: Db,
  box: SecretBox,
  projectId: string,
  ids: string[],
): Promise<SavedServer[]> {
  return (await getStoredServersByIds(sql, projectId, ids)).map((server) => toSavedServer(box, server));
}

/** The project's servers named so (names are what a caller may pass where an id is expected). */
export async function getServerRefsByNames(sql: Db, projectId: string, names: string[]): Promise<ServerRef[]> {
  return await sql<
    ServerRef[]
  >`SELECT id, name, enabled FROM servers WHERE project_id = ${projectId} AND name = ANY(${names}) ORDER BY created_at, id`;
}

export async function getServerRefsByIds(sql: Db, projectId: string, ids: string[]): Promise<ServerRef[]> {
  return await sql<
    ServerRef[]
  >`SELECT id, name, enabled FROM servers WHERE project_id = ${projectId} AND id = ANY(${ids})`;
}

/**
 * The roots a tenant's host may declare to a server: those an operator allowed, and those of the server's own client
 * profile (an operator declared them to it, so they are within its reach already).
 */
function allowedRootsOf(server: Pick<StoredServer, 'allowedRoots' | 'clientProfile'>): string[] {
  return [...new Set([...server.allowedRoots, ...(server.clientProfile?.roots ?? []).map((r) => r.uri)])];
}

/** What a host's roots are checked against, of the project's servers of these ids (no secret opened). */
export async function getRootFences(
  sql: Db,
  projectId: string,
  ids: string[],
): Promise<Pick<SavedServer, 'id' | 'name' | 'transportType' | 'allowedRoots'>[]> {
  const rows = await sql<Pick<ServerRow, 'id' | 'name' | 'transport_type' | 'allowed_roots' | 'client_profile'>[]>`
    SELECT id, name, transport_type, allowed_roots, client_profile FROM servers
    WHERE project_id = ${projectId} AND id = ANY(${ids}) ORDER BY created_at, id`;
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    transportType: row.transport_type,
    allowedRoots: allowedRootsOf({ allowedRoots: row.allowed_roots, clientProfile: row.client_profile }),
  }));
}

/** The server with its secrets opened: for what connects to it. */
export function toSavedServer(box: SecretBox, server: StoredServer): SavedServer {
  return {
    id: server.id,
    projectId: server.projectId,
    organizationId: server.organizationId,
    name: server.name,
    enabled: server.enabled,
    transportType: server.transportType,
    url: server.url,
    command: server.command,
    args: server.args,
    env: box.decryptJson(server.envEnc, {}),
    cwd: server.cwd,
    headers: box.decryptJson(server.headersEnc, {}),
    useOAuth: server.useOauth,
    oauthScopes: server.oauthScopes,
    oauthClientId: server.oauthClientId,
    clientSecret: server.clientSecretEnc ? box.decrypt(server.clientSecretEnc) : null,
    authorizationServerUrl: server.authorizationServerUrl,
    oauthGrant: server.oauthGrant,
    privateKey: server.oauthPrivateKeyEnc ? box.decrypt(server.oauthPrivateKeyEnc) : null,
    signingAlg: server.oauthSigningAlg,
    timeouts: server.timeouts,
    clientProfile: server.clientProfile ?? {},
    allowedRoots: allowedRootsOf(server),
    iterationIsolation: server.iterationIsolation,
    revision: server.revision,
    createdAt: server.createdAt,
    updatedAt: server.updatedAt,
    protocol: protocolOf(server),
  };
}

/** The protocol a stored server last spoke, when a session has opened with it. */
export function protocolOf(
  server: Pick<StoredServer, 'protocolEra' | 'protocolVersion' | 'protocolSeenAt'>,
): ServerProtocol | null {
  return server.protocolEra && server.protocolVersion && server.protocolSeenAt
    ? { era: server.protocolEra, version: server.protocolVersion, seenAt: server.protocolSeenAt }
    : null;
}

/**
 * Records the protocol a server spoke when a session opened, when it differs from what is stored: a metadata write
 * that neither bumps the server's revision (its sessions stay) nor its updated_at (an operator's edits).
 */
export async function recordServerProtocol(
  sql: Db,
  serverId: string,
  protocol: { era: ProtocolEraName; version: string },
): Promise<void> {
  await sql`
    UPDATE servers SET protocol_era = ${protocol.era}, protocol_version = ${protocol.version.slice(0, 64)},
                       protocol_seen_at = clock_timestamp()
    WHERE id = ${serverId}
      AND (protocol_era IS DISTINCT FROM ${protocol.era} OR protocol_version IS DISTINCT FROM ${protocol.version.slice(0, 64)})`;
}

export type { ServerRow };
