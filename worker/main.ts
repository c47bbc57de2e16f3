import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { createActivities } from '../activities/index.js';
import { loadConfig } from '../activities/config.js';
import { createLogger } from '../activities/logger.js';
import { ConnectionPool, createMcpOperations } from '../activities/mcp/index.js';
import { createSql } from '../db/connection.js';
import { SecretBox } from '../db/secretBox.js';
import { createRunwayWorker } from './createWorker.js';

// Production entry point (`npm run worker`): real dependencies, configured by the environment.
const config = loadConfig();
const log = createLogger(config.LOG_LEVEL);
const sql = createSql(config.DATABASE_URL);
Runtime.install({ logger: new DefaultLogger(config.LOG_LEVEL === 'debug' || config.LOG_LEVEL === 'trace' ? 'DEBUG' : 'WARN') });
const pool = new ConnectionPool({ idleTimeoutMs: config.MCP_IDLE_TIMEOUT_MS, log });
const box = SecretBox.fromBase64(config.RUNWAY_ENCRYPTION_KEY);
const mcp = createMcpOperations({ sql, box, config, log, pool });
const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
const worker = await createRunwayWorker({
  connection,
  namespace: config.TEMPORAL_NAMESPACE,
  taskQueue: config.TEMPORAL_TASK_QUEUE,
  activities: createActivities({ sql, box, config, log, mcp }),
});
log.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, address: config.TEMPORAL_ADDRESS }, 'worker started');
await worker.run();
await pool.close(); // stops every stdio child process
await connection.close();
await sql.end();
log.info('worker stopped');
