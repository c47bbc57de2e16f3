import type { ClientProfile } from '../mcp/clientProfile.js';

/** How Runway reaches a server: a child process speaking over stdio, Streamable HTTP, or the legacy HTTP+SSE transport. */
export type TransportType = 'stdio' | 'http' | 'sse';

/**
 * How a server's OAuth tokens come: imported by a caller who completed the browser flow, or obtained and renewed
 * by Runway itself with the client_credentials grant (a machine-to-machine server).
 */
export type OAuthGrant = 'caller' | 'client_credentials';

/** A server's own time limits (ms) for connecting, initializing, one request and a whole operation; unset: the defaults. */
export interface ServerTimeouts {
  connectMs?: number;
  initializeMs?: number;
  requestMs?: number;
  maxTotalMs?: number;
}

/**
 * Whether a run's iterations each get fresh MCP sessions (a new process for stdio) or share the process's sessions.
 * Fresh sessions keep iterations independent (what pass@k assumes); sharing is cheaper for a stateless server.
 */
export type IterationIsolation = 'per-iteration' | 'shared';

/** A saved server with its secrets decrypted: only the MCP layer ever sees this. */
export interface SavedServer {
  id: string;
  projectId: string;
  /** the organization of its project: sessions kept open are bounded per organization (pool.ts) */
  organizationId: string;
  name: string;
  enabled: boolean;
  transportType: TransportType;
  url: string | null;
  command: string | null;
  args: string[];
  env: Record<string, string>;
  /** stdio: the absolute working directory an operator chose; null: the server's own under DATA_DIR */
  cwd: string | null;
  headers: Record<string, string>;
  useOAuth: boolean;
  oauthScopes: string[];
  oauthClientId: string | null;
  clientSecret: string | null;
  /** set by an operator: the only authorization server this server's grants are imported for and refreshed at */
  authorizationServerUrl: string | null;
  oauthGrant: OAuthGrant;
  /** client_credentials with private_key_jwt: the client's private key (PKCS#8 PEM) and its JWS algorithm */
  privateKey: string | null;
  signingAlg: string | null;
  timeouts: ServerTimeouts;
  /** what the client declares to it and how it answers its requests (`{}`: nothing declared) */
  clientProfile: ClientProfile;
  /**
   * stdio: the file:// roots a tenant's host may declare to it (a host root must lie inside one): those an operator
   * allowed (`--allowed-root`) and those of the server's own client profile, set by an operator too. Empty: none.
   */
  allowedRoots: string[];
  /** set by an operator: 'shared', the iterations of every run share this server's sessions; null, the suite decides */
  iterationIsolation: IterationIsolation | null;
  revision: number;
  createdAt: Date;
  updatedAt: Date;
  /** the protocol it last spoke to Runway (recordServerProtocol); null until a session opened */
  protocol?: ServerProtocol | null;
}

/** 'modern': MCP 2026-07-28 (server/discover, stateless); 'legacy': the initialize handshake (2025-11-25 and before). */
export type ProtocolEraName = 'modern' | 'legacy';

/** The protocol a server last spoke to Runway, and when. */
export interface ServerProtocol {
  era: ProtocolEraName;
  version: string;
  seenAt: Date;
}

/** A saved MCP server as the project's list shows it: its settings, no secret (only whether a client secret is set). */
export interface ListedServer {
  id: string;
  projectId: string;
  name: string;
  enabled: boolean;
  transportType: TransportType;
  url: string | null;
  useOAuth: boolean;
  hasClientSecret: boolean;
  oauthScopes: string[];
  /** the protocol it last spoke to Runway; null until a session opened */
  protocol: ServerProtocol | null;
  createdAt: Date;
  updatedAt: Date;
}
