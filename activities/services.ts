import { createSql, type Sql } from '../db/connection.js';
import { SecretBox } from '../db/secretBox.js';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import { ConnectionPool, createMcpOperations, type McpOperations } from './mcp/index.js';

/** The long-lived dependencies an API or worker process builds once from its configuration. */
export interface Services {
  sql: Sql;
  box: SecretBox;
  /** this process's MCP sessions (stdio children included) */
  pool: ConnectionPool;
  mcp: McpOperations;
  /** closes the MCP sessions (ending every stdio child) and, when it opened it, the database pool */
  close(): Promise<void>;
}

export function createServices(config: Config, log: Logger, sql?: Sql): Services {
  const ownSql = sql === undefined;
  const database = sql ?? createSql(config.DATABASE_URL);
  const box = SecretBox.fromSetting(config.RUNWAY_ENCRYPTION_KEY);
  const pool = new ConnectionPool({ idleTimeoutMs: config.MCP_IDLE_TIMEOUT_MS, log });
  const mcp = createMcpOperations({ sql: database, box, config, log, pool });
  return {
    sql: database,
    box,
    pool,
    mcp,
    async close() {
      await pool.close();
      if (ownSql) await database.end({ timeout: 5 });
    },
  };
}
