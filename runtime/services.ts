import { createSql, type Sql } from '../db/connection.js';
import { environmentKeySource, KeyMismatchError } from '../db/keyring.js';
import { createOAuthTokenStore } from '../db/oauthTokenStore.js';
import { SecretBox } from '../db/secretBox.js';
import { createServerStore } from '../db/serverStore.js';
import { checkSecretsAtStart } from '../db/startupCheck.js';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import { ConnectionPool, createMcpOperations, type McpOperations } from '../domain/mcp/index.js';
import { parseHostedModels, type HostedModelCatalog } from '../domain/models/catalog.js';

/**
 * The long-lived dependencies an API or worker process builds once from its configuration: its entry point
 * (api/main.ts, worker/main.ts) calls createServices once and hands them down (createApp, createActivities), which
 * build nothing of these again.
 */
export interface Services {
  sql: Sql;
  /** seals and opens stored secrets with RUNWAY_ENCRYPTION_KEY */
  box: SecretBox;
  /** this process's MCP sessions (stdio children included) */
  pool: ConnectionPool;
  mcp: McpOperations;
  /** the models runs may execute (HOSTED_MODELS) */
  catalog: HostedModelCatalog;
  /** closes the MCP sessions (ending every stdio child) and, when it opened it, the database pool */
  close(): Promise<void>;
}

export function createServices(config: Config, log: Logger, sql?: Sql): Services {
  const ownSql = sql === undefined;
  const database = sql ?? createSql(config.DATABASE_URL);
  const box = SecretBox.fromSetting(config.RUNWAY_ENCRYPTION_KEY);
  const pool = new ConnectionPool({
    idleTimeoutMs: config.MCP_IDLE_TIMEOUT_MS,
    warmSessions: config.MCP_WARM_SESSIONS,
    log,
  });
  const mcp = createMcpOperations({
    tokens: createOAuthTokenStore(database, box),
    servers: createServerStore(database, box),
    config,
    log,
    pool,
  });
  return {
    sql: database,
    box,
    pool,
    mcp,
    catalog: parseHostedModels(config.HOSTED_MODELS),
    async close() {
      await pool.close();
      if (ownSql) await database.end({ timeout: 5 });
    },
  };
}

/**
 * The API's and the worker's start-up key check (db/startupCheck.ts): warnings go to the log; a key that does not
 * match the database's record ends the process with the operator's message, before it reads or writes a secret.
 */
export async function checkKeysAtStart(services: Services, log: Logger): Promise<void> {
  try {
    const check = await checkSecretsAtStart(services.sql, services.box, environmentKeySource);
    if (check.firstRecord)
      log.info(
        { keyId: services.box.newest.id },
        "recorded the encryption key this database's secrets are sealed with",
      );
    if (check.hostsSealed > 0)
      log.info({ hosts: check.hostsSealed }, 'sealed the header values of hosts saved before they were encrypted');
    for (const warning of check.warnings) log.warn(warning);
  } catch (error) {
    if (!(error instanceof KeyMismatchError)) throw error;
    log.fatal(error.message);
    await services.close();
    // pino writes to stdout asynchronously when it is a pipe: let the line out before exiting.
    await new Promise((resolve) => process.stdout.write('', resolve));
    process.exit(1);
  }
}
