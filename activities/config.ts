import { z } from 'zod';
import { EncryptionKeyError, Keyring } from '../db/keyring.js';

const int = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/**
 * Everything the processes read from the environment, in one schema (documented in the README's table).
 * The API, the worker, the CLI and `npm start` all load it, so a variable means the same thing everywhere.
 */
export const configSchema = z.object({
  DATABASE_URL: z.string().min(1),
  /** one base64 key (32 bytes), or several separated by commas, newest first (db/keyring.ts) */
  RUNWAY_ENCRYPTION_KEY: z.string().min(1).superRefine((value, ctx) => {
    try {
      Keyring.fromSetting(value);
    } catch (error) {
      if (!(error instanceof EncryptionKeyError)) throw error;
      ctx.addIssue({ code: 'custom', message: error.message });
    }
  }),
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('runway-evals'),
  HOST: z.string().default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  PUBLIC_URL: z.string().url().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  RATE_LIMIT_PER_MINUTE: int(60),
  RATE_LIMIT_BURST: int(10),
  MAX_CONCURRENT_RUNS: int(2),
  /** every API process checks runs quiet this long against Temporal this often (docs/OPERATIONS.md) */
  RUN_SWEEP_INTERVAL_MS: int(30_000),
  MCP_CONNECT_TIMEOUT_MS: int(10_000),
  MCP_INITIALIZE_TIMEOUT_MS: int(10_000),
  MCP_REQUEST_TIMEOUT_MS: int(30_000),
  MCP_MAX_TOTAL_TIMEOUT_MS: int(120_000),
  MCP_IDLE_TIMEOUT_MS: int(300_000),
  EVAL_ITERATION_CONCURRENCY: int(8),
  HOSTED_MODELS: z.string().default(''),
  /** when set, GET /metrics (API and worker) needs `Authorization: Bearer <METRICS_TOKEN>` */
  METRICS_TOKEN: z.string().min(1).optional(),
  /** the worker serves GET /metrics on this port when set (the API serves it on PORT) */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
});

export type Config = z.infer<typeof configSchema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}
