import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { EncryptionKeyError, Keyring } from '../db/keyring.js';

// The one place that reads the process's environment: every process (the API, the worker, `npm run migrate`,
// `npm start`, the operator CLI, the `runway` CLI) loads the section of one schema it uses, so a variable means the
// same thing everywhere and a bad value stops the process with its name. docs/CONFIGURATION.md's tables list
// the same variables (test/unit/config.test.ts keeps them equal).

/** A setting the process cannot run with: the message names each variable and what it must be, never its value. */
export class EnvironmentError extends Error {
  constructor(issues: string[]) {
    super(`invalid environment: ${issues.join('; ')}`);
    this.name = 'EnvironmentError';
  }
}

const positive = 'must be a whole number above 0';
const int = (fallback: number) =>
  z.coerce.number({ error: positive }).int(positive).positive(positive).default(fallback);
const rateLimitWait = 'must be a whole number of ms from 0 to 600000';
const portNumber = 'must be a port number (0 to 65535)';
const port = () => z.coerce.number({ error: portNumber }).int(portNumber).min(0, portNumber).max(65535, portNumber);
const url = (what: string) => z.string().url(`must be ${what}`);
const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `must be one of ${values.join(', ')}` });
const atLeast1000 = 'must be a whole number of at least 1000';
const path = (what: string) => z.string().min(1, `must be ${what}`);
const retentionDaysIssue = 'must be a whole number of days from 1 to 36500, or forever';
/** Days something is kept (domain/retention/policy.ts), or `forever`: null. */
const retentionDays = (fallback: number | 'forever') =>
  z
    .string()
    .trim()
    .default(String(fallback))
    .transform((value, ctx): number | null => {
      if (value === 'forever') return null;
      const days = /^\d+$/.test(value) ? Number(value) : NaN;
      if (days >= 1 && days <= 36_500) return days;
      ctx.addIssue({ code: 'custom', message: retentionDaysIssue });
      return z.NEVER;
    });

/** An unset (or empty) variable the local stack stands in for (see `standIns`), as a shell's `${X:-default}` does. */
const unsetWhenEmpty = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

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
    const wrong = value
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => !namedRanges.has(entry) && !ipaddr.isValid(entry) && !ipaddr.isValidCIDR(entry));
    if (wrong.length > 0)
      ctx.addIssue({
        code: 'custom',
        message: `not an address, CIDR range or one of ${[...namedRanges].join(', ')}: ${wrong.join(', ')}`,
      });
    return value;
  });

const databaseUrl = z
  .string({
    error:
      'must be set to a PostgreSQL connection URL (`npm start` runs an embedded PostgreSQL and migrates it itself)',
  })
  .min(1, 'must be a PostgreSQL connection URL, not empty');

/** one base64 key (32 bytes), or several separated by commas, newest first (db/keyring.ts) */
const encryptionKey = z
  .string({
    error:
      'must be set: base64 of 32 random bytes (openssl rand -base64 32), several separated by commas, newest first',
  })
  .min(1, { error: 'must be base64 of 32 random bytes, not empty', abort: true })
  .superRefine((value, ctx) => {
    try {
      Keyring.fromSetting(value);
    } catch (error) {
      if (!(error instanceof EncryptionKeyError)) throw error;
      ctx.addIssue({ code: 'custom', message: error.message });
    }
  });

/**
 * OTEL_EXPORTER_OTLP_HEADERS as the OpenTelemetry specification spells it: `key=value` pairs separated by commas,
 * values percent-encoded. The message never echoes the value (it usually holds an API key).
 */
const otlpHeaders = z.string().transform((value, ctx): Record<string, string> => {
  const headers: Record<string, string> = {};
  for (const pair of value.split(',')) {
    if (!pair.trim()) continue;
    const at = pair.indexOf('=');
    const key = pair.slice(0, Math.max(at, 0)).trim();
    let decoded: string | undefined;
    try {
      decoded = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      decoded = undefined;
    }
    if (at < 1 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key) || decoded === undefined) {
      ctx.addIssue({ code: 'custom', message: 'must be key=value pairs separated by commas (values percent-encoded)' });
      return z.NEVER;
    }
    headers[key.toLowerCase()] = decoded;
  }
  return headers;
});

/** The checkout's `.data`, where `npm start` keeps its state too (cli/localStack.ts). */
const projectDataDir = fileURLToPath(new URL('../.data', import.meta.url));

/** The API's and the worker's variables (also what the test stack and the fault harness give them). */
/** The ranges WEBHOOK_ALLOWED_RANGES may name (domain/webhooks/webhook.ts ALLOWABLE_RANGES). */
const WEBHOOK_RANGES = ['loopback', 'private', 'carrierGradeNat'] as const;

export const configSchema = z.object({
  DATABASE_URL: databaseUrl,
  RUNWAY_ENCRYPTION_KEY: encryptionKey,
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('runway-evals'),
  HOST: z.string().default('0.0.0.0'),
  PORT: port().default(3000),
  PUBLIC_URL: url('a URL such as https://runway.example.com').optional(),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  RATE_LIMIT_PER_MINUTE: int(60),
  RATE_LIMIT_BURST: int(10),
  /** per client address, for work without a usable key: bad or missing keys, uploads to single-use URLs */
  RATE_LIMIT_ANON_PER_MINUTE: int(60),
  RATE_LIMIT_ANON_BURST: int(20),
  TRUST_PROXY: trustProxy,
  MAX_CONCURRENT_RUNS: int(2),
  /** a conformance check's time limit (issue 32): past it the suite is stopped and the check fails (TIMEOUT) */
  CONFORMANCE_TIMEOUT_MS: int(600_000),
  /** every API process checks runs quiet this long against Temporal this often (docs/OPERATIONS.md) */
  RUN_SWEEP_INTERVAL_MS: int(30_000),
  /** queued runs (issue 33) an organization may have at once: past it, 429 RUN_QUEUE_FULL */
  MAX_QUEUED_RUNS: int(100),
  /** every API process starts queued runs whose organization has a free slot this often (a lost tell, a restart) */
  RUN_QUEUE_SWEEP_INTERVAL_MS: int(5_000),
  /**
   * the length of a schedule's minute (`intervalMinutes` of a suite's schedule): 60000 in production; a demo or a
   * test sets seconds. Applies to schedules as they are created or updated.
   */
  SCHEDULE_MINUTE_MS: z.coerce.number({ error: atLeast1000 }).int(atLeast1000).min(1000, atLeast1000).default(60_000),
  MCP_CONNECT_TIMEOUT_MS: int(10_000),
  MCP_INITIALIZE_TIMEOUT_MS: int(10_000),
  MCP_REQUEST_TIMEOUT_MS: int(30_000),
  MCP_MAX_TOTAL_TIMEOUT_MS: int(120_000),
  MCP_IDLE_TIMEOUT_MS: int(300_000),
  /**
   * sessions opened ahead, per server, for eval iterations that get fresh ones (iteration isolation): a stdio server's
   * next process is already started when an iteration asks for it. 0: opened on demand.
   */
  MCP_WARM_SESSIONS: z.coerce.number().int().min(0).max(32).default(2),
  /** files of Runway's own: each stdio server runs in servers/<serverId> below it unless saved with a cwd */
  DATA_DIR: path('a folder')
    .default(projectDataDir)
    .transform((dir) => resolve(dir)),
  /** a response stream the server closes before answering is resumed (GET + Last-Event-ID) at most this often in a row... */
  MCP_RESUME_MAX_ATTEMPTS: int(5),
  /** ...and a request waits at most this long, in total, for its stream to come back */
  MCP_RESUME_MAX_DELAY_MS: int(30_000),
  EVAL_ITERATION_CONCURRENCY: int(8),
  /**
   * activity slots of one worker: the batches (each a lane of a run) it runs at once, plus the short plan and finalize
   * activities. Size a worker to its host (docs/OPERATIONS.md#how-work-spreads-across-workers)
   */
  WORKER_ACTIVITY_SLOTS: int(32),
  /**
   * a model provider's rate limit (429, 529) that resets within this many ms is waited for in the worker, the run's
   * lanes together, spending no attempt; a longer one is left to Temporal (nextRetryDelay). 0: always Temporal
   */
  MODEL_RATE_LIMIT_WAIT_MS: z.coerce
    .number({ error: rateLimitWait })
    .int(rateLimitWait)
    .min(0, rateLimitWait)
    .max(600_000, rateLimitWait)
    .default(60_000),
  HOSTED_MODELS: z.string().default(''),
  /** when set, GET /metrics (API and worker) needs `Authorization: Bearer <METRICS_TOKEN>` */
  METRICS_TOKEN: z.string().min(1, 'must not be empty (unset it to leave /metrics open)').optional(),
  /** the worker serves GET /metrics on this port when set (the API serves it on PORT) */
  METRICS_PORT: port().optional(),
  /**
   * whether each JSON reply is checked against its route's response schema before it is sent: `off` (default), `log`
   * a mismatch, or `strict`: answer 500 instead (the test stack, so every reply a test sees is a documented one)
   */
  REPLY_VALIDATION: oneOf(['off', 'log', 'strict']).default('off'),
  /**
   * the worker's Node binary for conformance checks (the official suite needs Node 22 or later) when the worker runs
   * on an older Node; unset: NODE22_PATH, else the machine cache's Node 22 (runtime/nodeBinary.ts)
   */
  CONFORMANCE_NODE_PATH: path('a Node 22 (or later) binary').optional(),
  /**
   * OpenTelemetry export of eval traces (issue 33; runtime/otel), the standard variables: the OTLP/HTTP base URL
   * (`/v1/traces` appended), or the traces URL itself (used as given), and the headers of every export
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: unsetWhenEmpty(url('an OTLP/HTTP base URL such as http://collector:4318')),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: unsetWhenEmpty(
    url('an OTLP/HTTP traces URL such as http://collector:4318/v1/traces'),
  ),
  OTEL_EXPORTER_OTLP_HEADERS: unsetWhenEmpty(otlpHeaders),
  /** retention (docs/OPERATIONS.md#retention): iteration traces and uploaded artifacts are kept this many days... */
  RETENTION_TRACE_DAYS: retentionDays(90),
  /** ...and ended runs with their iterations this many (`forever`: kept); an organization may set its own */
  RETENTION_RUN_DAYS: retentionDays('forever'),
  /** rows one retention batch removes (one short statement each) */
  RETENTION_BATCH_SIZE: z.coerce.number({ error: positive }).int(positive).min(1, positive).max(10_000).default(500),
  /** how often the worker's Temporal Schedule runs retention, in minutes */
  RETENTION_INTERVAL_MINUTES: int(1440),
  /** signed webhooks (issue 33, docs/WEBHOOKS.md): how long a delivery is retried in all (Temporal's retries) */
  WEBHOOK_RETRY_FOR_MS: int(86_400_000),
  /** the first wait between a delivery's attempts; each next one is 3 times longer, up to WEBHOOK_RETRY_MAX_INTERVAL_MS */
  WEBHOOK_RETRY_INITIAL_INTERVAL_MS: int(10_000),
  WEBHOOK_RETRY_MAX_INTERVAL_MS: int(3_600_000),
  /** one attempt's time limit (connect, send, read the start of the reply) */
  WEBHOOK_TIMEOUT_MS: int(10_000),
  /**
   * the non-public address ranges webhook endpoints may reach, comma-separated among loopback, private and
   * carrierGradeNat (default none: public addresses only, https only); any of them also allows http URLs. For a
   * development receiver on this machine or a private network, never link-local or cloud metadata.
   */
  WEBHOOK_ALLOWED_RANGES: z
    .string()
    .default('')
    .transform((value, ctx) => {
      const ranges = value
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean);
      const wrong = ranges.filter((r) => !(WEBHOOK_RANGES as readonly string[]).includes(r));
      if (wrong.length > 0)
        ctx.addIssue({
          code: 'custom',
          message: `must be among ${WEBHOOK_RANGES.join(', ')}, not ${wrong.join(', ')}`,
        });
      return ranges as (typeof WEBHOOK_RANGES)[number][];
    }),
});

/** The embedded PostgreSQL's port when EMBEDDED_POSTGRES_PORT is unset. */
export const DEFAULT_EMBEDDED_POSTGRES_PORT = 54329;

/** `npm start`'s and the operator CLI's own variables (cli/localStack.ts), besides the stand-ins below. */
const localStackVariables = z.object({
  /**
   * `npm start`'s data folder: its embedded PostgreSQL, Temporal's database, the generated encryption key, and
   * stack.json, where a running `npm start` says where its stack is (cli/stackRecord.ts)
   */
  RUNWAY_DATA_DIR: path('a folder').default(projectDataDir),
  EMBEDDED_POSTGRES_PORT: port().default(DEFAULT_EMBEDDED_POSTGRES_PORT),
  /** the Temporal dev server `npm start` runs when TEMPORAL_ADDRESS is unset, and its Web UI */
  TEMPORAL_PORT: port().default(7233),
  TEMPORAL_UI_PORT: port().default(8233),
  /** the streamable HTTP demo MCP server `npm start` runs, which the seeded demo project points at */
  DEMO_MCP_PORT: port().default(3001),
});

/** The tools `npm start` and the tests provision (scripts/temporal-cli.ts, runtime/nodeBinary.ts). */
const toolsSchema = z.object({
  TEMPORAL_CLI_PATH: path('a temporal binary').optional(),
  /** a Jaeger v2 binary for the OpenTelemetry export test (scripts/jaeger.ts), instead of the machine cache's */
  JAEGER_PATH: path('a jaeger binary').optional(),
  NODE22_PATH: path('a Node 22 binary').optional(),
  NODE24_PATH: path('a Node 24 binary').optional(),
  /** the machine cache every clone shares: provisioned tools live in runway/ below it */
  XDG_CACHE_HOME: path('a folder').default(join(homedir(), '.cache')),
});

/** The API the `runway` CLI talks to when neither RUNWAY_URL nor a running `npm start` says otherwise. */
export const DEFAULT_RUNWAY_URL = 'http://localhost:3000';

/** The `runway` CLI's (cli/runway/). */
const runwayCliSchema = z.object({
  RUNWAY_URL: url('a URL such as http://localhost:3000').default(DEFAULT_RUNWAY_URL),
  /** checked by the CLI itself, which says how to get one (cli/runway/program.ts) */
  RUNWAY_API_KEY: z.string().optional(),
  /** a project id, or `default`: the organization's default project */
  RUNWAY_PROJECT_ID: z.string().default('default'),
});

/** Every variable any process reads, with its default; each process loads only its section. */
export const environmentSchema = configSchema
  .extend(localStackVariables.shape)
  .extend(toolsSchema.shape)
  .extend(runwayCliSchema.shape);

/**
 * `npm start` and the operator CLI stand in for what is not given: an unset or empty DATABASE_URL means the embedded
 * PostgreSQL, RUNWAY_ENCRYPTION_KEY the key file in the data folder, TEMPORAL_ADDRESS a Temporal dev server, and
 * DATA_DIR (handed to the API and the worker as given, for them to resolve) the data folder.
 */
const standIns = {
  DATABASE_URL: unsetWhenEmpty(databaseUrl),
  RUNWAY_ENCRYPTION_KEY: unsetWhenEmpty(encryptionKey),
  TEMPORAL_ADDRESS: unsetWhenEmpty(z.string()),
  DATA_DIR: z.string().optional(),
} satisfies Partial<Record<keyof typeof environmentSchema.shape, z.ZodType>>;

const migrationSchema = configSchema.pick({ DATABASE_URL: true });
/** The operator CLI's `retention` commands: the deployment's defaults, as the worker reads them. */
const retentionSchema = configSchema.pick({
  RETENTION_TRACE_DAYS: true,
  RETENTION_RUN_DAYS: true,
  RETENTION_BATCH_SIZE: true,
});
/**
 * The operator CLI's: EMBEDDED_POSTGRES_PORT stays undefined when unset, so the CLI can go to the database of the
 * `npm start` that runs in RUNWAY_DATA_DIR (its stack.json), and to the default port only when none runs.
 */
const localStackSchema = localStackVariables.pick({ RUNWAY_DATA_DIR: true, DEMO_MCP_PORT: true }).extend({
  EMBEDDED_POSTGRES_PORT: unsetWhenEmpty(port()),
  DATABASE_URL: standIns.DATABASE_URL,
  RUNWAY_ENCRYPTION_KEY: standIns.RUNWAY_ENCRYPTION_KEY,
});
const startSchema = localStackSchema.extend({
  EMBEDDED_POSTGRES_PORT: localStackVariables.shape.EMBEDDED_POSTGRES_PORT,
  TEMPORAL_PORT: localStackVariables.shape.TEMPORAL_PORT,
  TEMPORAL_UI_PORT: localStackVariables.shape.TEMPORAL_UI_PORT,
  PORT: configSchema.shape.PORT,
  /** where the API listens: npm start probes it there, and checks its port is free there */
  HOST: configSchema.shape.HOST,
  /** the worker's, when set: checked free before anything starts */
  METRICS_PORT: configSchema.shape.METRICS_PORT,
  TEMPORAL_ADDRESS: standIns.TEMPORAL_ADDRESS,
  DATA_DIR: standIns.DATA_DIR,
  /** the worker's: when unset on a Node older than 22, npm start puts a Node 22 in the machine cache for it */
  CONFORMANCE_NODE_PATH: configSchema.shape.CONFORMANCE_NODE_PATH,
});
/**
 * The `runway` CLI's: RUNWAY_URL stays undefined when unset, so the CLI can go to the API of the `npm start` that
 * runs in RUNWAY_DATA_DIR (its stack.json), and to DEFAULT_RUNWAY_URL only when none runs.
 */
const runwayCliSection = runwayCliSchema.extend({
  RUNWAY_URL: unsetWhenEmpty(runwayCliSchema.shape.RUNWAY_URL.unwrap()),
  RUNWAY_DATA_DIR: localStackVariables.shape.RUNWAY_DATA_DIR,
});

export type Config = z.infer<typeof configSchema>;
export type LocalStackConfig = z.infer<typeof localStackSchema>;
export type StartConfig = z.infer<typeof startSchema>;
export type ToolsConfig = z.infer<typeof toolsSchema>;
export type RunwayCliConfig = z.infer<typeof runwayCliSection>;
export type RetentionConfig = z.infer<typeof retentionSchema>;

// eslint-disable-next-line no-restricted-properties -- the one place that reads it (see the top of this file)
const processEnv: NodeJS.ProcessEnv = process.env;

function load<T extends z.ZodType>(schema: T, env: NodeJS.ProcessEnv): z.infer<T> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) throw new EnvironmentError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  return parsed.data;
}

/** The API's and the worker's configuration. */
export const loadConfig = (env = processEnv): Config => load(configSchema, env);
/** `npm run migrate`: the database to migrate. */
export const loadMigrationConfig = (env = processEnv) => load(migrationSchema, env);
/**
 * The operator CLI: DATABASE_URL, else the embedded PostgreSQL on EMBEDDED_POSTGRES_PORT, else the database of the
 * `npm start` running in RUNWAY_DATA_DIR, else the embedded one on its default port (cli/localStack.ts).
 */
export const loadLocalStackConfig = (env = processEnv): LocalStackConfig => load(localStackSchema, env);
/** `npm start`: the local stack, the ports of what it runs, and what it hands the API and the worker. */
export const loadStartConfig = (env = processEnv): StartConfig => load(startSchema, env);
/** Where the Temporal CLI and the extra Node binaries come from. */
export const loadToolsConfig = (env = processEnv): ToolsConfig => load(toolsSchema, env);
/** The `runway` CLI: which Runway, which key, which project. */
export const loadRunwayCliConfig = (env = processEnv): RunwayCliConfig => load(runwayCliSection, env);
/** The operator CLI's `retention` commands: the deployment's retention defaults. */
export const loadRetentionConfig = (env = processEnv): RetentionConfig => load(retentionSchema, env);
