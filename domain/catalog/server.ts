import type { ServerProtocol, TransportType } from '../../db/servers.js';

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
