import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../activities/config.js';
import { createLogger } from '../activities/logger.js';
import { ConnectionPool, createMcpOperations } from '../activities/mcp/index.js';
import { createSql } from '../db/connection.js';
import { migrate } from '../db/migrate.js';
import { SecretBox } from '../db/secretBox.js';
import { createApp } from './app.js';

// Production entry point (`npm run api`): real dependencies, configured by the environment.
const config = loadConfig();
const log = createLogger(config.LOG_LEVEL);
const sql = createSql(config.DATABASE_URL);
await migrate(sql);
const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
const temporal = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
const pool = new ConnectionPool({ idleTimeoutMs: config.MCP_IDLE_TIMEOUT_MS, log });
const mcp = createMcpOperations({ sql, box: SecretBox.fromBase64(config.RUNWAY_ENCRYPTION_KEY), config, log, pool });
const app = createApp({ sql, temporal, config, log, mcp });
const server = app.express.listen(config.PORT, config.HOST, () => {
  log.info({ port: config.PORT }, `API listening on http://${config.HOST === '0.0.0.0' ? 'localhost' : config.HOST}:${config.PORT}/api/v1`);
});

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'API stopping');
    server.close(async () => {
      await pool.close(); // stops every stdio child process
      await connection.close();
      await sql.end({ timeout: 5 });
      process.exit(0);
    });
    server.closeIdleConnections();
    setTimeout(() => process.exit(0), 10_000).unref();
  });
}
