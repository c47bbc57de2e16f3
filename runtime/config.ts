import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { EncryptionKeyError, Keyring } from '../db/keyring.js';

const int = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** Express's names for address ranges, usable in TRUST_PROXY next to addresses and CIDR ranges. */
const namedRanges = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * Express's `trust proxy`: which proxies' X-Forwarded-For (and -Proto, -Host) to believe, and so which address
 * is the client's. `false` (the default) believes none: the peer's address is the client's. `true` believes any
 * (only behind a proxy that overwrites the header), a number the nth hop, else a comma-separated list of
 * addresses, CIDR ranges and the names above.
 */
const trustProxy = z
  .string()
  .trim()
  .default('false')
  .transform((value, ctx): boolean | number | string => {
    if (value === '' || value === 'false') return false;
    if (value === 'true') return true;
    if (/^\d+$/.test(value)) return Number(value);
    const wrong = value.split(',').map((entry) => entry.trim()).filter((entry) => !namedRanges.has(entry) && !ipaddr.isValid(entry) && !ipaddr.isValidCIDR(entry));
    if (wrong.length > 0) ctx.addIssue({ code: 'custom', message: `not an address, CIDR range or one of ${[...namedRanges].join(', ')}: ${wrong.join(', ')}` });
    return value;
  });

/** The checkout's `.data`, where `npm start` keeps its state too (cli/localStack.ts). */
const projectDataDir = fileURLToPath(new URL('../.data', import.meta.url));

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
  /** per client address, for work without a usable key: bad or missing keys, uploads to single-use URLs */
  RATE_LIMIT_ANON_PER_MINUTE: int(60),
  RATE_LIMIT_ANON_BURST: int(20),
  TRUST_PROXY: trustProxy,
  MAX_CONCURRENT_RUNS: int(2),
  /** every API process checks runs quiet this long against Temporal this often (docs/OPERATIONS.md) */
  RUN_SWEEP_INTERVAL_MS: int(30_000),
  /**
   * the length of a schedule's minute (`intervalMinutes` of a suite's schedule): 60000 in production; a demo or a
   * test sets seconds. Applies to schedules as they are created or updated.
   */
  SCHEDULE_MINUTE_MS: z.coerce.number().int().min(1000).default(60_000),
  MCP_CONNECT_TIMEOUT_MS: int(10_000),
  MCP_INITIALIZE_TIMEOUT_MS: int(10_000),
  MCP_REQUEST_TIMEOUT_MS: int(30_000),
  MCP_MAX_TOTAL_TIMEOUT_MS: int(120_000),
  MCP_IDLE_TIMEOUT_MS: int(300_000),
  /** files of Runway's own: each stdio server runs in servers/<serverId> below it unless saved with a cwd */
  DATA_DIR: z.string().min(1).default(projectDataDir).transform((dir) => resolve(dir)),
  /** a response stream the server closes before answering is resumed (GET + Last-Event-ID) at most this often in a row... */
  MCP_RESUME_MAX_ATTEMPTS: int(5),
  /** ...and a request waits at most this long, in total, for its stream to come back */
  MCP_RESUME_MAX_DELAY_MS: int(30_000),
  EVAL_ITERATION_CONCURRENCY: int(8),
  HOSTED_MODELS: z.string().default(''),
  /** when set, GET /metrics (API and worker) needs `Authorization: Bearer <METRICS_TOKEN>` */
  METRICS_TOKEN: z.string().min(1).optional(),
  /** the worker serves GET /metrics on this port when set (the API serves it on PORT) */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /**
   * whether each JSON reply is checked against its route's response schema before it is sent: `off` (default), `log`
   * a mismatch, or `strict`: answer 500 instead (the test stack, so every reply a test sees is a documented one)
   */
  REPLY_VALIDATION: z.enum(['off', 'log', 'strict']).default('off'),
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
