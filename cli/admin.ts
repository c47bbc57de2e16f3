import { isAbsolute, normalize } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command, InvalidArgumentError, Option } from 'commander';
import { loadLocalStackConfig, type LocalStackConfig } from '../runtime/config.js';
import { clientProfileSchema } from '../api/schemas/clientProfile.js';
import { addMembership, createApiKey, createOrganization, createUser, revokeApiKey } from '../db/accounts.js';
import { listServerEntries } from '../db/directory.js';
import { createChatbox, createChatSession } from '../db/catalog.js';
import { createSql, type Sql } from '../db/connection.js';
import { EncryptionKeyError, KeyMismatchError, recordedKeys } from '../db/keyring.js';
import { migrate } from '../db/migrate.js';
import { getOrganizationLimits, setOrganizationLimits, type OrganizationLimits } from '../db/organizationLimits.js';
import { limits } from '../domain/limits.js';
import { deleteModelPrice, listModelPrices, setModelPrice } from '../db/modelPrices.js';
import { DEFAULT_PRICES, DEFAULT_PRICES_AS_OF, type ModelPrice } from '../domain/models/prices.js';
import { isModelProvider, MODEL_PROVIDERS } from '../domain/models/providers.js';
import { rootPath } from '../domain/mcp/rootsFence.js';
import { createProject } from '../db/projects.js';
import { setProviderKey } from '../db/providerKeys.js';
import { rekeySecrets, secretsByKey } from '../db/rekey.js';
import { SecretBox } from '../db/secretBox.js';
import {
  createServer,
  getServerSettings,
  setAuthorizationServer,
  oauthClientProblem,
  setClientProfile,
  updateOAuthClient,
  updateServerSettings,
  type OAuthClientChanges,
  type ServerSettings,
} from '../db/servers.js';
import { checkSecretsAtStart } from '../db/startupCheck.js';
import { requireFreeEmail, requireMember, requireOrganization, requireProject, requireUser } from './adminChecks.js';
import { addListCommands } from './adminLists.js';
import { addRetentionCommands } from './adminRetention.js';
import { readClientKey } from './clientKey.js';
import { describeDatabaseError } from './databaseErrors.js';
import { requireLocalKey, stackDatabase, type StackDatabase } from './localStack.js';
import { collect } from './options.js';
import { pairedSecrets, secretsHelp, singleSecret, StandardInput } from './secretInput.js';
import { seedDemo } from './seed.js';
import { isIP } from 'node:net';
import { createOtlpTargetStore } from '../db/otlpTargets.js';
import { classifyAddress } from '../domain/mcp/addressClass.js';
import type { OtlpTarget } from '../domain/ports/otlpTargets.js';
import { otlpEndpointProblem } from '../runtime/otel/endpoint.js';
import type { ClientProfile } from '../domain/mcp/clientProfile.js';
import type { OAuthGrant, ServerTimeouts } from '../domain/catalog/server.js';

// Operator CLI: `npm run -s admin -- <command>`. Talks to Postgres directly (DATABASE_URL, else the database of
// `npm start`), so it works before any API key exists. Every command takes --json for machine-readable output.

const program = new Command('runway-admin').description('Runway operator commands').showHelpAfterError();

/** The database the command used: its errors name it. */
let database: StackDatabase | undefined;

interface Context {
  sql: Sql;
  box: SecretBox;
  stack: LocalStackConfig;
}

const visible = 'visible in ps and shell history';

/** An http(s) URL, as an option value (an authorization server's issuer URL). */
const httpUrl = (value: string): string => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InvalidArgumentError('must be an http or https URL');
  return value;
};

/** A stdio server's working directory: absolute, or it would depend on where the service happens to run. */
const absolutePath = (value: string): string => {
  if (!isAbsolute(value)) throw new InvalidArgumentError('must be an absolute path');
  return normalize(value).replace(/(.)\/+$/, '$1');
};

/** A root an operator allows a stdio server: a file:// URI of this machine, stored normalized. */
const allowedRootUri = (value: string): string => {
  const path = rootPath(value);
  if (path === undefined) throw new InvalidArgumentError('must be a file:// URI of a folder on this machine');
  return pathToFileURL(path).href;
};

const collectAllowedRoot = (value: string, previous: string[] = []) => [...previous, allowedRootUri(value)];

const ALLOWED_ROOT_HELP =
  "stdio: a file:// URI a tenant's host may list as a root for this server (repeat; a host root must lie inside one). " +
  "Default none: a host's roots are refused for it (roots name what a filesystem server on this machine reads)";

const CWD_HELP =
  'stdio: the working directory of the server process (absolute; it must exist). Default: a private directory of its own under the data folder (DATA_DIR/servers/<serverId>)';

/** The per-server timeouts (servers.timeouts), each overriding the service's MCP_*_TIMEOUT_MS. */
const TIMEOUT_OPTIONS = [
  ['--connect-timeout-ms <ms>', 'connectMs', 'spawning the process or opening the connection (MCP_CONNECT_TIMEOUT_MS)'],
  [
    '--initialize-timeout-ms <ms>',
    'initializeMs',
    'the initialize handshake; raise it for npx/uvx/docker servers, whose first start downloads (MCP_INITIALIZE_TIMEOUT_MS)',
  ],
  ['--request-timeout-ms <ms>', 'requestMs', 'one request; progress notifications restart it (MCP_REQUEST_TIMEOUT_MS)'],
  ['--max-total-timeout-ms <ms>', 'maxTotalMs', 'how far progress may stretch one request (MCP_MAX_TOTAL_TIMEOUT_MS)'],
] as const;

type TimeoutFlags = {
  connectTimeoutMs?: number;
  initializeTimeoutMs?: number;
  requestTimeoutMs?: number;
  maxTotalTimeoutMs?: number;
};

function withTimeoutOptions(command: Command): Command {
  for (const [flags, , help] of TIMEOUT_OPTIONS)
    command.addOption(new Option(flags, `per-server timeout: ${help}`).argParser(positiveInt));
  return command;
}

/** The timeouts given on the command line, as saved (servers.timeouts). */
function timeoutsFrom(o: TimeoutFlags): ServerTimeouts {
  const given: ServerTimeouts = {};
  if (o.connectTimeoutMs !== undefined) given.connectMs = o.connectTimeoutMs;
  if (o.initializeTimeoutMs !== undefined) given.initializeMs = o.initializeTimeoutMs;
  if (o.requestTimeoutMs !== undefined) given.requestMs = o.requestTimeoutMs;
  if (o.maxTotalTimeoutMs !== undefined) given.maxTotalMs = o.maxTotalTimeoutMs;
  return given;
}

const describeSettings = (r: ServerSettings) => {
  const timeouts = Object.entries(r.timeouts)
    .map(([name, ms]) => `${name} ${ms}`)
    .join(', ');
  return [
    `server ${r.id} (${r.name}, ${r.transportType})`,
    r.transportType === 'stdio'
      ? `  working directory: ${r.cwd ?? 'its own, under the data folder'}`
      : `  authorization server: ${r.authorizationServerUrl ?? 'from its own metadata'}`,
    ...(r.transportType === 'stdio'
      ? [`  roots a host may list: ${r.allowedRoots.length > 0 ? r.allowedRoots.join(', ') : 'none'}`]
      : []),
    `  timeouts: ${timeouts || "the service's defaults"}`,
    `  eval iterations: ${r.iterationIsolation === 'shared' ? 'share its sessions (set here)' : 'as each suite says (fresh sessions per iteration unless the suite shares them)'}`,
  ].join('\n');
};

const OAUTH_GRANT_HELP =
  "OAuth: how the server's tokens are obtained. caller (default): a caller completes the browser flow and imports them; " +
  'client-credentials: Runway obtains and renews them itself (machine-to-machine), with --client-id and either a client ' +
  'secret (client_secret_basic, or client_secret_post when the authorization server only allows that) or a private key (private_key_jwt)';
const grantOption = () =>
  new Option('--oauth-grant <grant>', OAUTH_GRANT_HELP).choices(['caller', 'client-credentials']);
const toGrant = (value: string): OAuthGrant => (value === 'client-credentials' ? 'client_credentials' : 'caller');

interface ClientKeyOptions {
  privateKeyStdin?: boolean;
  privateKeyEnv?: string;
  privateKeyFile?: string;
  signingAlg?: string;
}

/** The client's private key, from stdin, the environment or a file (never an argument), checked and normalized. */
async function clientKey(o: ClientKeyOptions, input: StandardInput): Promise<{ pem: string; alg: string } | undefined> {
  const text = await singleSecret(
    'private-key',
    { env: o.privateKeyEnv, file: o.privateKeyFile, stdin: o.privateKeyStdin },
    input,
  );
  if (text === undefined) {
    if (o.signingAlg)
      throw new Error(
        '--signing-alg goes with a private key (--private-key-stdin, --private-key-env or --private-key-file)',
      );
    return undefined;
  }
  return readClientKey(text, o.signingAlg);
}

/** The private-key options of `server create` and `server update`. */
function withClientKeyOptions(command: Command): Command {
  return command
    .option(
      '--private-key-stdin',
      "OAuth client_credentials with private_key_jwt: the client's private key (PEM or JWK), read from standard input (stored encrypted)",
    )
    .option(
      '--private-key-env <NAME>',
      "the client's private key, from the environment variable NAME (stored encrypted)",
    )
    .option('--private-key-file <PATH>', "the client's private key, read from a file (stored encrypted)")
    .option(
      '--signing-alg <alg>',
      'the JWS algorithm of its client assertions (default: RS256 for RSA keys, ES256/ES384/ES512 for EC keys, EdDSA for Ed25519)',
    );
}

const AUTHORIZATION_SERVER_HELP =
  "OAuth: the server's authorization server (issuer URL). Grants are then imported only for it and refreshed only at " +
  "the token endpoint its metadata names; without it, the server's own protected-resource metadata decides";

/**
 * Runs a command against the database and prints its result: JSON with --json, else readable lines. Like every
 * process, it first checks its encryption key against the database's record and refuses on a mismatch; it never
 * creates a key (`npm start` does, for a database that has none).
 */
function action<O extends object>(
  run: (ctx: Context, options: O, args: string[]) => Promise<object>,
  describe: (result: any) => string,
) {
  return async (...received: unknown[]) => {
    const command = received.at(-1) as Command;
    const options = command.opts<O & { json?: boolean }>();
    const stack = loadLocalStackConfig();
    database = stackDatabase(stack);
    const sql = createSql(database.url, { max: 2 });
    try {
      await migrate(sql);
      const key = await requireLocalKey(sql, stack, { create: false });
      const box = SecretBox.fromSetting(key.value, key.source.name);
      const check = await checkSecretsAtStart(sql, box, key.source);
      for (const warning of check.warnings) console.error(`warning: ${warning}`);
      const result = await run({ sql, box, stack }, options, command.args);
      console.log(options.json ? JSON.stringify(result, null, 2) : describe(result));
    } finally {
      await sql.end({ timeout: 5 });
    }
  };
}

const json = new Option('--json', 'print machine-readable JSON');

const org = program.command('org').description('organizations');
org
  .command('create')
  .description('create an organization (its members, projects and keys come next)')
  .requiredOption('--name <name>')
  .addOption(json)
  .action(
    action<{ name: string }>(
      async ({ sql }, o) => createOrganization(sql, { name: o.name }),
      (r) => `organization ${r.id} (${r.name})`,
    ),
  );

/** A ceiling: a whole number within 1..max, or `none` to clear it (commander turns a parsed null into ''). */
const ceiling =
  (max: number) =>
  (value: string): number | 'none' => {
    if (value === 'none') return 'none';
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1 || n > max)
      throw new InvalidArgumentError(`a whole number from 1 to ${max}, or "none" to clear it`);
    return n;
  };

/** on or off, as a boolean. */
const onOff = (value: string): boolean => {
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new InvalidArgumentError('on or off');
};

const describeLimits = (r: OrganizationLimits & { organizationId: string }) =>
  [
    `organization ${r.organizationId}:`,
    `  max tokens per run:      ${r.maxTokens ?? 'none'}`,
    `  max iterations per run:  ${r.maxIterations ?? 'none'}`,
    `  max concurrency per run: ${r.maxConcurrency ?? 'none'}`,
    `  queue runs past the cap: ${r.queueRuns ? 'on' : 'off'}`,
  ].join('\n');

program
  .command('org-limits')
  .description(
    'show or set the ceilings every eval run of an organization obeys: a run asking for more is refused (400, details.reason ABOVE_ORGANIZATION_LIMIT); one asking nothing gets the ceiling as its budget, and its default concurrency is lowered to it',
  )
  .requiredOption('--org <organizationId>')
  .option('--max-tokens <n|none>', 'tokens a run may spend', ceiling(limits.budgetTokens))
  .option('--max-iterations <n|none>', 'iterations a run may run', ceiling(limits.iterationsPerRun))
  .option('--max-concurrency <n|none>', 'batches a run keeps in flight', ceiling(limits.runConcurrency))
  .option(
    '--queue-runs <on|off>',
    'queue runs past the concurrency cap (status queued, started in order as slots free) when a request does not say (POST /eval-runs `queue`); scheduled runs follow it',
    onOff,
  )
  .addOption(json)
  .action(
    action<{
      org: string;
      maxTokens?: number | 'none';
      maxIterations?: number | 'none';
      maxConcurrency?: number | 'none';
      queueRuns?: boolean;
    }>(async ({ sql }, o) => {
      await requireOrganization(sql, o.org);
      const given = (value: number | 'none' | undefined) => (value === 'none' ? null : value);
      const changes = {
        maxTokens: given(o.maxTokens),
        maxIterations: given(o.maxIterations),
        maxConcurrency: given(o.maxConcurrency),
        queueRuns: o.queueRuns,
      };
      const set = Object.values(changes).some((v) => v !== undefined)
        ? await setOrganizationLimits(sql, o.org, changes)
        : await getOrganizationLimits(sql, o.org);
      return { organizationId: o.org, ...set };
    }, describeLimits),
  );

/** USD per million tokens: a number from 0 up to limits.budgetUsd. */
const usdPerMTok = (value: string): number => {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > limits.budgetUsd)
    throw new InvalidArgumentError(`USD per million tokens: a number from 0 to ${limits.budgetUsd}`);
  return n;
};

/** A price key: `<provider>/<name>`, the provider one of Runway's. */
const priceModel = (value: string): string => {
  const slash = value.indexOf('/');
  const provider = value.slice(0, Math.max(slash, 0));
  if (slash <= 0 || slash === value.length - 1 || value.length > 300)
    throw new InvalidArgumentError('<provider>/<name>, e.g. openai/gpt-4.1-mini');
  if (!isModelProvider(provider))
    throw new InvalidArgumentError(`unknown provider "${provider}" (one of ${MODEL_PROVIDERS.join(', ')})`);
  return value;
};

interface PriceEntry extends ModelPrice {
  model: string;
  source: 'organization' | 'default';
}

const describePrice = (p: PriceEntry) =>
  `  ${p.model.padEnd(40)} in ${p.inputPerMTok}  out ${p.outputPerMTok}  cached ${p.cachedInputPerMTok ?? '(as input)'}  (${p.source})`;

const describePrices = (r: { organizationId: string; defaultsAsOf: string; prices: PriceEntry[]; cleared?: string }) =>
  [
    ...(r.cleared ? [`cleared the organization's price of ${r.cleared}: the default applies (if any)`] : []),
    `organization ${r.organizationId}: USD per million tokens (defaults as of ${r.defaultsAsOf})`,
    ...r.prices.map(describePrice),
  ].join('\n');

program
  .command('model-prices')
  .description(
    "show the model prices an organization's eval runs are costed with (its own over the shipped defaults), or set or clear its own price of a model: USD per million input, output and cached input tokens. A model with no price costs null (unknown)",
  )
  .requiredOption('--org <organizationId>')
  .option(
    '--model <provider/name>',
    'the model to set or clear, as `<provider>/<name>` (openai/gpt-4.1-mini)',
    priceModel,
  )
  .option('--input <usd>', 'USD per million input tokens', usdPerMTok)
  .option('--output <usd>', 'USD per million output tokens', usdPerMTok)
  .option('--cached <usd>', 'USD per million cached input tokens (default: as input)', usdPerMTok)
  .option('--clear', "drop the organization's own price of --model (the default applies again)")
  .addOption(json)
  .action(
    action<{ org: string; model?: string; input?: number; output?: number; cached?: number; clear?: boolean }>(
      async ({ sql }, o) => {
        await requireOrganization(sql, o.org);
        const setting = o.input !== undefined || o.output !== undefined || o.cached !== undefined;
        if ((setting || o.clear) && !o.model) throw new InvalidArgumentError('--model names the price to set or clear');
        if (setting && o.clear) throw new InvalidArgumentError('--clear takes no prices');
        if (setting && (o.input === undefined || o.output === undefined))
          throw new InvalidArgumentError('a price needs both --input and --output (and optionally --cached)');
        if (o.clear && !(await deleteModelPrice(sql, o.org, o.model!)))
          throw new InvalidArgumentError(`organization ${o.org} has no price of its own for ${o.model}`);
        if (setting)
          await setModelPrice(sql, o.org, o.model!, {
            inputPerMTok: o.input!,
            outputPerMTok: o.output!,
            ...(o.cached !== undefined && { cachedInputPerMTok: o.cached }),
          });
        const own: PriceEntry[] = (await listModelPrices(sql, o.org)).map(({ updatedAt: _, ...p }) => ({
          ...p,
          source: 'organization',
        }));
        const defaults: PriceEntry[] = Object.entries(DEFAULT_PRICES)
          .filter(([model]) => !own.some((p) => p.model === model))
          .map(([model, price]) => ({ model, ...price, source: 'default' }));
        const prices = [...own, ...defaults].filter((p) => !o.model || p.model === o.model);
        return {
          organizationId: o.org,
          defaultsAsOf: DEFAULT_PRICES_AS_OF,
          prices,
          ...(o.clear && { cleared: o.model }),
        };
      },
      describePrices,
    ),
  );

const user = program.command('user').description('users');
user
  .command('create')
  .description('create a user, optionally as a member of an organization')
  .requiredOption('--email <email>')
  .requiredOption('--name <name>')
  .option('--org <organizationId>', 'also make the user a member of this organization')
  .addOption(new Option('--role <role>', 'role in --org').choices(['owner', 'admin', 'member']).default('member'))
  .addOption(json)
  .action(
    action<{ email: string; name: string; org?: string; role: 'owner' | 'admin' | 'member' }>(
      async ({ sql }, o) => {
        if (o.org) await requireOrganization(sql, o.org);
        await requireFreeEmail(sql, o.email);
        return await sql.begin(async (tx) => {
          const created = await createUser(tx, { email: o.email, name: o.name });
          if (o.org) await addMembership(tx, { organizationId: o.org, userId: created.id, role: o.role });
          return { ...created, ...(o.org ? { organizationId: o.org, role: o.role } : {}) };
        });
      },
      (r) => `user ${r.id} (${r.email})${r.organizationId ? `, ${r.role} of ${r.organizationId}` : ''}`,
    ),
  );

program
  .command('member')
  .description('organization memberships')
  .command('add')
  .description('make a user a member of an organization, or change their role in it')
  .requiredOption('--org <organizationId>')
  .requiredOption('--user <userId>')
  .addOption(new Option('--role <role>').choices(['owner', 'admin', 'member']).default('member'))
  .addOption(json)
  .action(
    action<{ org: string; user: string; role: 'owner' | 'admin' | 'member' }>(
      async ({ sql }, o) => {
        await requireOrganization(sql, o.org);
        await requireUser(sql, o.user);
        await addMembership(sql, { organizationId: o.org, userId: o.user, role: o.role });
        return { organizationId: o.org, userId: o.user, role: o.role };
      },
      (r) => `${r.userId} is ${r.role} of ${r.organizationId}`,
    ),
  );

const project = program.command('project').description('projects');
project
  .command('create')
  .description('create a project in an organization; its saved servers and eval suites live in it')
  .requiredOption('--org <organizationId>')
  .requiredOption('--name <name>')
  .option('--description <text>', '', '')
  .option('--private', 'visible only to its members and org owners/admins')
  .option('--default', "the organization's default project (used by eval ingest's `default`)")
  .addOption(json)
  .action(
    action<{ org: string; name: string; description: string; private?: boolean; default?: boolean }>(
      async ({ sql }, o) => {
        await requireOrganization(sql, o.org);
        return await createProject(sql, {
          organizationId: o.org,
          name: o.name,
          description: o.description,
          visibility: o.private ? 'private' : 'organization',
          isDefault: o.default,
        });
      },
      (r) => `project ${r.id} (${r.name})`,
    ),
  );

const server = program.command('server').description('saved MCP servers');
const serverCreate = server
  .command('create')
  .description(
    'save an MCP server in a project: a stdio command, or an HTTP/SSE URL, with its secrets stored encrypted',
  )
  .requiredOption('--project <projectId>')
  .requiredOption('--name <name>')
  .addOption(new Option('--transport <type>').choices(['stdio', 'http', 'sse']).makeOptionMandatory())
  .option('--command <command>', 'stdio: the program to spawn')
  .option('--arg <arg>', 'stdio: an argument (repeat)', collect)
  .option('--env-stdin', 'stdio: environment variables as KEY=VALUE lines on standard input (stored encrypted)')
  .option(
    '--env-env <KEY=NAME>',
    "stdio: environment variable KEY, valued as this shell's variable NAME (repeat; stored encrypted)",
    collect,
  )
  .option('--env <KEY=VALUE>', `stdio: an environment variable (repeat; stored encrypted; ${visible})`, collect)
  .option('--url <url>', 'http/sse: the server URL')
  .option(
    '--header-stdin',
    'http/sse: headers sent on every request, as KEY=VALUE lines on standard input (stored encrypted)',
  )
  .option(
    '--header-env <KEY=NAME>',
    "http/sse: header KEY, valued as this shell's variable NAME (repeat; stored encrypted)",
    collect,
  )
  .option(
    '--header <KEY=VALUE>',
    `http/sse: a header sent on every request (repeat; stored encrypted; ${visible})`,
    collect,
  )
  .option('--oauth', 'the server requires an OAuth grant')
  .option('--scope <scope>', 'OAuth scope (repeat)', collect)
  .option('--client-id <id>', 'OAuth client id')
  .option('--client-secret-stdin', 'OAuth client secret, read from standard input (stored encrypted)')
  .option('--client-secret-env <NAME>', 'OAuth client secret, from the environment variable NAME (stored encrypted)')
  .option('--client-secret <secret>', `OAuth client secret (stored encrypted; ${visible})`)
  .option('--authorization-server-url <url>', AUTHORIZATION_SERVER_HELP, httpUrl)
  .option('--cwd <dir>', CWD_HELP, absolutePath)
  .option('--allowed-root <file-uri>', ALLOWED_ROOT_HELP, collectAllowedRoot)
  .option('--disabled', 'save it disabled')
  .addOption(grantOption().default('caller'));
withClientKeyOptions(serverCreate);
withTimeoutOptions(serverCreate)
  .addOption(json)
  .addHelpText('after', secretsHelp)
  .action(
    action<
      {
        project: string;
        name: string;
        transport: 'stdio' | 'http' | 'sse';
        command?: string;
        arg?: string[];
        url?: string;
        env?: string[];
        envEnv?: string[];
        envStdin?: boolean;
        header?: string[];
        headerEnv?: string[];
        headerStdin?: boolean;
        oauth?: boolean;
        scope?: string[];
        clientId?: string;
        clientSecret?: string;
        clientSecretEnv?: string;
        clientSecretStdin?: boolean;
        authorizationServerUrl?: string;
        cwd?: string;
        allowedRoot?: string[];
        disabled?: boolean;
        oauthGrant: string;
      } & TimeoutFlags &
        ClientKeyOptions
    >(
      async ({ sql, box }, o) => {
        if (o.transport === 'stdio' && !o.command) throw new Error('--command is required for stdio servers');
        if (o.transport !== 'stdio' && !o.url) throw new Error('--url is required for http and sse servers');
        if (o.transport !== 'stdio' && o.cwd) throw new Error('--cwd is for stdio servers');
        if (o.transport !== 'stdio' && o.allowedRoot)
          throw new Error("--allowed-root is for stdio servers (a remote server's roots are only names)");
        const input = new StandardInput({
          '--env-stdin': o.envStdin,
          '--header-stdin': o.headerStdin,
          '--client-secret-stdin': o.clientSecretStdin,
          '--private-key-stdin': o.privateKeyStdin,
        });
        const env = await pairedSecrets('env', { pairs: o.env, env: o.envEnv, stdin: o.envStdin }, input);
        const headers = await pairedSecrets(
          'header',
          { pairs: o.header, env: o.headerEnv, stdin: o.headerStdin },
          input,
        );
        const clientSecret = await singleSecret(
          'client-secret',
          { value: o.clientSecret, env: o.clientSecretEnv, stdin: o.clientSecretStdin },
          input,
        );
        const key = await clientKey(o, input);
        const oauthGrant = toGrant(o.oauthGrant);
        const problem = oauthClientProblem({
          transportType: o.transport,
          oauthGrant,
          oauthClientId: o.clientId ?? null,
          clientSecret: clientSecret ?? null,
          privateKey: key?.pem ?? null,
          signingAlg: key?.alg ?? null,
        });
        if (problem) throw new Error(problem);
        await requireProject(sql, o.project);
        const created = await createServer(sql, box, {
          projectId: o.project,
          name: o.name,
          transportType: o.transport,
          command: o.command,
          args: o.arg,
          env,
          url: o.url,
          headers,
          useOAuth: o.oauth || oauthGrant === 'client_credentials',
          oauthScopes: o.scope,
          oauthClientId: o.clientId,
          clientSecret,
          authorizationServerUrl: o.authorizationServerUrl,
          oauthGrant,
          privateKey: key?.pem,
          signingAlg: key?.alg,
          cwd: o.cwd,
          allowedRoots: o.allowedRoot,
          enabled: !o.disabled,
          timeouts: timeoutsFrom(o),
        });
        return { ...created, ...(o.allowedRoot ? { allowedRoots: o.allowedRoot } : {}) };
      },
      (r) =>
        `server ${r.id} (${r.name}, ${r.transportType})` +
        (r.allowedRoots ? `\n  roots a host may list: ${r.allowedRoots.join(', ')}` : ''),
    ),
  );
const serverUpdate = server
  .command('update')
  .description(
    "change a saved server's OAuth settings (its authorization server: grants already imported are refreshed there from now " +
      'on; how its tokens are obtained; its OAuth client: a server that gets its tokens itself forgets its current ones on any ' +
      'such change), its working directory (stdio) or its timeouts (each given one replaces the saved one; the others are ' +
      'kept). The next operation starts a new session with them.',
  )
  .argument('<serverId>')
  .option('--authorization-server-url <url>', AUTHORIZATION_SERVER_HELP, httpUrl)
  .option('--clear-authorization-server', "forget it: the server's own metadata decides again")
  .addOption(grantOption())
  .option('--client-id <id>', 'OAuth client id')
  .option(
    '--client-secret-stdin',
    'OAuth client secret, read from standard input (stored encrypted; replaces a private key)',
  )
  .option(
    '--client-secret-env <NAME>',
    'OAuth client secret, from the environment variable NAME (stored encrypted; replaces a private key)',
  )
  .option('--client-secret <secret>', `OAuth client secret (stored encrypted; replaces a private key; ${visible})`)
  .option('--scope <scope>', 'OAuth scope (repeat; replaces the saved scopes)', collect)
  .option('--cwd <dir>', CWD_HELP, absolutePath)
  .option('--clear-cwd', 'stdio: run in its own directory under the data folder again')
  .option('--allowed-root <file-uri>', `${ALLOWED_ROOT_HELP}; replaces the saved ones`, collectAllowedRoot)
  .option('--clear-allowed-roots', "stdio: allow no root: a host's roots are refused for it")
  .option(
    '--clear-timeouts',
    "forget every per-server timeout (the service's defaults apply again) before setting the ones given",
  )
  .addOption(
    new Option(
      '--iteration-isolation <mode>',
      "shared: the iterations of every eval run share this server's sessions (a stateless server: no process per " +
        'iteration); suite: each suite decides (fresh sessions per iteration unless it shares them)',
    ).choices(['shared', 'suite']),
  );
withClientKeyOptions(serverUpdate);
withTimeoutOptions(serverUpdate)
  .addOption(json)
  .addHelpText('after', secretsHelp)
  .action(
    action<
      {
        authorizationServerUrl?: string;
        clearAuthorizationServer?: boolean;
        oauthGrant?: string;
        clientId?: string;
        clientSecret?: string;
        clientSecretEnv?: string;
        clientSecretStdin?: boolean;
        scope?: string[];
        cwd?: string;
        clearCwd?: boolean;
        allowedRoot?: string[];
        clearAllowedRoots?: boolean;
        clearTimeouts?: boolean;
        iterationIsolation?: 'shared' | 'suite';
      } & TimeoutFlags &
        ClientKeyOptions
    >(
      async ({ sql, box }, o, [serverId]) => {
        if (o.authorizationServerUrl && o.clearAuthorizationServer)
          throw new Error('give only one of --authorization-server-url and --clear-authorization-server');
        if (o.cwd && o.clearCwd) throw new Error('give only one of --cwd and --clear-cwd');
        if (o.allowedRoot && o.clearAllowedRoots)
          throw new Error('give only one of --allowed-root and --clear-allowed-roots');
        const input = new StandardInput({
          '--client-secret-stdin': o.clientSecretStdin,
          '--private-key-stdin': o.privateKeyStdin,
        });
        const clientSecret = await singleSecret(
          'client-secret',
          { value: o.clientSecret, env: o.clientSecretEnv, stdin: o.clientSecretStdin },
          input,
        );
        const key = await clientKey(o, input);
        if (clientSecret !== undefined && key) throw new Error('give the client a secret or a private key, not both');
        const changes: OAuthClientChanges = {
          ...(o.oauthGrant ? { oauthGrant: toGrant(o.oauthGrant) } : {}),
          ...(o.clientId ? { oauthClientId: o.clientId } : {}),
          // One way for the client to authenticate: a new secret drops the key, a new key drops the secret.
          ...(clientSecret !== undefined ? { clientSecret, privateKey: null } : {}),
          ...(key ? { privateKey: key, clientSecret: null } : {}),
          // A key serves only the client_credentials grant: back to the caller's grant, it goes.
          ...(o.oauthGrant === 'caller' && !key ? { privateKey: null } : {}),
          ...(o.scope ? { oauthScopes: o.scope } : {}),
        };
        const timeouts = timeoutsFrom(o);
        const authorization = o.authorizationServerUrl !== undefined || o.clearAuthorizationServer;
        const settings =
          o.cwd !== undefined ||
          o.clearCwd ||
          o.allowedRoot !== undefined ||
          o.clearAllowedRoots ||
          o.clearTimeouts ||
          o.iterationIsolation !== undefined ||
          Object.keys(timeouts).length > 0;
        const oauthClient = Object.keys(changes).length > 0;
        if (!authorization && !settings && !oauthClient) {
          throw new Error(
            'nothing to change: give an OAuth option, --cwd, --allowed-root, a timeout option, --iteration-isolation, or one of the --clear options (see --help)',
          );
        }
        let client: Record<string, unknown> = {};
        if (oauthClient) {
          const updated = await updateOAuthClient(sql, box, serverId, changes);
          if (!updated) throw new Error(`no server ${serverId}`);
          client = updated;
        }
        return await sql.begin(async (tx) => {
          const found =
            (!authorization ||
              (await setAuthorizationServer(tx, serverId, o.authorizationServerUrl ?? null)) !== undefined) &&
            (!settings ||
              (await updateServerSettings(tx, serverId, {
                cwd: o.clearCwd ? null : o.cwd,
                allowedRoots: o.clearAllowedRoots ? [] : o.allowedRoot,
                clearTimeouts: o.clearTimeouts,
                timeouts,
                iterationIsolation:
                  o.iterationIsolation === undefined ? undefined : o.iterationIsolation === 'shared' ? 'shared' : null,
              })));
          const updated = found ? await getServerSettings(tx, serverId) : undefined;
          if (!updated) throw new Error(`no server ${serverId}`);
          return { ...client, ...updated };
        });
      },
      (r) =>
        [
          describeSettings(r as ServerSettings),
          ...(r.oauthGrant
            ? [
                `  OAuth tokens ${r.oauthGrant === 'client_credentials' ? `obtained by Runway (client_credentials, ${r.clientAuthentication})` : 'imported by callers'}`,
              ]
            : []),
        ].join('\n'),
    ),
  );

server
  .command('client-profile')
  .description(
    "what Runway's MCP client declares to a saved server and how it answers the server's requests (replaces the whole profile; " +
      'a feature not given is not declared). See docs/MCP-CLIENT.md',
  )
  .argument('<serverId>')
  .addOption(
    new Option(
      '--elicitation <answer>',
      'declare form elicitation, answered this way unless a call or test case brings its own answer',
    ).choices(['decline', 'cancel', 'accept', 'defaults']),
  )
  .option(
    '--elicitation-content <json>',
    'with accept: the form content (a JSON object); with defaults: fields to fill in or override',
  )
  .option('--elicitation-url', 'also declare URL-mode elicitation (its requests are declined)')
  .option('--sampling', "declare sampling (server operations decline its requests; an eval run's model answers them)")
  .option('--root <[name=]uri>', 'declare roots and list this file:// URI (repeat)', collect)
  .option('--clear', 'declare nothing')
  .addOption(json)
  .action(
    action<{
      elicitation?: 'decline' | 'cancel' | 'accept' | 'defaults';
      elicitationContent?: string;
      elicitationUrl?: boolean;
      sampling?: boolean;
      root?: string[];
      clear?: boolean;
    }>(
      async ({ sql }, o, [serverId]) => {
        const features = o.elicitation !== undefined || o.sampling || o.root !== undefined;
        if (Boolean(o.clear) === features)
          throw new Error('give --clear, or the features to declare (--elicitation, --sampling, --root)');
        if ((o.elicitationContent !== undefined || o.elicitationUrl) && o.elicitation === undefined)
          throw new Error('--elicitation-content and --elicitation-url need --elicitation');
        let profile: ClientProfile | null = null;
        if (!o.clear) {
          const parsed = clientProfileSchema.safeParse({
            ...(o.elicitation !== undefined
              ? {
                  elicitation: {
                    answer: elicitationAnswer(o.elicitation, o.elicitationContent),
                    ...(o.elicitationUrl ? { url: true } : {}),
                  },
                }
              : {}),
            ...(o.sampling ? { sampling: {} } : {}),
            ...(o.root !== undefined ? { roots: o.root.map(rootOption) } : {}),
          });
          if (!parsed.success)
            throw new Error(
              parsed.error.issues.map((issue) => `${issue.path.join('.') || 'profile'}: ${issue.message}`).join('; '),
            );
          profile = parsed.data;
        }
        const updated = await setClientProfile(sql, serverId, profile);
        if (!updated) throw new Error(`no server ${serverId}`);
        return updated;
      },
      (r) => `server ${r.id} (${r.name}): ${describeProfile(r.clientProfile)}`,
    ),
  );

/** The elicitation answer the options describe; the content is checked by the profile's schema. */
function elicitationAnswer(answer: 'decline' | 'cancel' | 'accept' | 'defaults', content: string | undefined): unknown {
  let parsed: unknown;
  if (content !== undefined) {
    try {
      parsed = JSON.parse(content);
    } catch {
      throw new Error('--elicitation-content is not JSON');
    }
  }
  if (answer === 'accept') return { action: 'accept', content: parsed };
  if (answer === 'defaults') return { mode: 'defaults', ...(parsed !== undefined ? { content: parsed } : {}) };
  if (parsed !== undefined) throw new Error(`--elicitation-content goes with accept or defaults, not ${answer}`);
  return { action: answer };
}

/** `file:///srv/app` or `app=file:///srv/app`. */
function rootOption(value: string): { uri: string; name?: string } {
  const named = /^([^=]+)=(file:.*)$/.exec(value);
  return named ? { uri: named[2], name: named[1] } : { uri: value };
}

function describeProfile(profile: ClientProfile): string {
  const declared = [
    ...(profile.elicitation
      ? [
          `elicitation${profile.elicitation.url ? ' (form, url)' : ''}, answered ${JSON.stringify(profile.elicitation.answer ?? { action: 'decline' })}`,
        ]
      : []),
    ...(profile.sampling ? ['sampling, declined'] : []),
    ...(profile.roots ? [`roots ${profile.roots.map((r) => r.uri).join(', ') || '(none)'}`] : []),
  ];
  return declared.length ? `declares ${declared.join('; ')}` : 'declares no client features';
}

const key = program.command('key').description('API keys: an sk_ key acts as its user inside its organization');
key
  .command('create')
  .description('create an API key for a member of an organization; its value is shown once, only its hash is stored')
  .requiredOption('--org <organizationId>')
  .requiredOption('--user <userId>', 'the key acts as this user inside the organization (a member of it)')
  .option('--name <name>', 'a label for the key', 'cli key')
  .addOption(json)
  .action(
    action<{ org: string; user: string; name: string }>(
      async ({ sql }, o) => {
        await requireMember(sql, o.org, o.user);
        const created = await createApiKey(sql, { name: o.name, organizationId: o.org, userId: o.user });
        return { id: created.id, name: created.name, apiKey: created.key };
      },
      (r) => `key ${r.id} created; its value is shown only now:\n${r.apiKey}`,
    ),
  );
key
  .command('revoke')
  .description(
    'revoke a key at once, named by its id (key list) or by its sk_ value (looked up by its hash, never stored or printed)',
  )
  .argument('<key>', 'the key id (key_...) or the key itself (sk_...)')
  .addOption(json)
  .action(
    action<object>(
      async ({ sql }, _o, [ref]) => {
        const outcome = await revokeApiKey(sql, ref);
        if (outcome.status === 'unknown') {
          throw new Error(
            ref.startsWith('sk_')
              ? 'no key has that value (see: npm run -s admin -- key list)'
              : `no key ${ref} (see: npm run -s admin -- key list)`,
          );
        }
        return outcome.status === 'revoked'
          ? { id: outcome.id, name: outcome.name, revoked: true }
          : { id: outcome.id, name: outcome.name, revoked: true, alreadyRevokedAt: outcome.revokedAt.toISOString() };
      },
      (r) =>
        r.alreadyRevokedAt
          ? `key ${r.id} (${r.name}) was already revoked, at ${r.alreadyRevokedAt}`
          : `key ${r.id} (${r.name}) revoked`,
    ),
  );

addListCommands({ org, user, project, server, key }, action);
addRetentionCommands(program, action);

program
  .command('provider-key')
  .description('organization model provider keys (hosted catalog models run on them)')
  .command('set')
  .description("set an organization's key (and base URL) for a model provider, stored encrypted")
  .requiredOption('--org <organizationId>')
  .requiredOption('--provider <provider>', 'openai, anthropic, google, openrouter, ollama or openai-compatible')
  .option('--api-key-stdin', 'the API key, read from standard input (stored encrypted)')
  .option('--api-key-env <NAME>', 'the API key, from the environment variable NAME (stored encrypted)')
  .option('--api-key <key>', `the API key (stored encrypted; ${visible})`)
  .option('--base-url <url>', 'an OpenAI-compatible endpoint, a proxy or a local model server')
  .addOption(json)
  .addHelpText('after', secretsHelp)
  .action(
    action<{
      org: string;
      provider: string;
      apiKey?: string;
      apiKeyEnv?: string;
      apiKeyStdin?: boolean;
      baseUrl?: string;
    }>(
      async ({ sql, box }, o) => {
        const input = new StandardInput({ '--api-key-stdin': o.apiKeyStdin });
        const apiKey = await singleSecret(
          'api-key',
          { value: o.apiKey, env: o.apiKeyEnv, stdin: o.apiKeyStdin },
          input,
        );
        if (apiKey === undefined)
          throw new Error('give the API key with --api-key-stdin, --api-key-env <NAME> or --api-key <key>');
        await requireOrganization(sql, o.org);
        await setProviderKey(sql, box, { organizationId: o.org, provider: o.provider, apiKey, baseUrl: o.baseUrl });
        return { organizationId: o.org, provider: o.provider, baseUrl: o.baseUrl ?? null };
      },
      (r) => `provider ${r.provider} configured for ${r.organizationId}`,
    ),
  );

program
  .command('chatbox')
  .description('published chatboxes')
  .command('create')
  .description("publish a chatbox of a project: a model with the project's servers")
  .requiredOption('--project <projectId>')
  .requiredOption('--name <name>')
  .requiredOption('--model <modelId>')
  .option('--server <serverId>', 'an attached server (repeat)', collect)
  .option('--host <hostId>')
  .option('--system-prompt <text>')
  .option('--description <text>')
  .addOption(
    new Option('--mode <mode>')
      .choices(['project_members', 'invited_only', 'anyone_with_link'])
      .default('project_members'),
  )
  .option('--require-tool-approval')
  .addOption(json)
  .action(
    action<{
      project: string;
      name: string;
      model: string;
      server?: string[];
      host?: string;
      systemPrompt?: string;
      description?: string;
      mode: 'project_members';
      requireToolApproval?: boolean;
    }>(
      async ({ sql }, o) => {
        await requireProject(sql, o.project);
        const saved = new Set((await listServerEntries(sql, { projectId: o.project })).map((s) => s.id));
        const missing = (o.server ?? []).filter((id) => !saved.has(id));
        if (missing.length > 0)
          throw new Error(
            `project ${o.project} has no server ${missing.join(', ')} (see: npm run -s admin -- server list --project ${o.project})`,
          );
        return await createChatbox(sql, {
          projectId: o.project,
          name: o.name,
          modelId: o.model,
          serverIds: o.server,
          hostId: o.host,
          systemPrompt: o.systemPrompt,
          description: o.description,
          mode: o.mode,
          requireToolApproval: o.requireToolApproval,
        });
      },
      (r) => `chatbox ${r.id}`,
    ),
  );

program
  .command('chat-session')
  .description('chat session records')
  .command('create')
  .description("record a chat session of a user in a project (the user must be a member of the project's organization)")
  .requiredOption('--project <projectId>')
  .requiredOption('--user <userId>')
  .option('--title <title>')
  .addOption(new Option('--status <status>').choices(['active', 'archived']).default('active'))
  .addOption(new Option('--visibility <visibility>').choices(['private', 'project']).default('private'))
  .addOption(json)
  .action(
    action<{
      project: string;
      user: string;
      title?: string;
      status: 'active' | 'archived';
      visibility: 'private' | 'project';
    }>(
      async ({ sql }, o) => {
        const found = await requireProject(sql, o.project);
        await requireMember(sql, found.organizationId, o.user);
        return await createChatSession(sql, {
          projectId: o.project,
          userId: o.user,
          title: o.title,
          status: o.status,
          visibility: o.visibility,
        });
      },
      (r) => `chat session ${r.id}`,
    ),
  );

program
  .command('seed')
  .description('seed data')
  .requiredOption('--demo', 'a demo organization, project, two servers (everything over stdio and HTTP) and a key')
  .option(
    '--http-url <url>',
    'URL of the streamable HTTP demo server (default: http://127.0.0.1:<DEMO_MCP_PORT>/mcp, the one `npm start` runs)',
  )
  .addOption(json)
  .action(
    action<{ httpUrl?: string }>(
      async ({ sql, box, stack }, o) => ({
        ...(await seedDemo(sql, box, { httpUrl: o.httpUrl ?? `http://127.0.0.1:${stack.DEMO_MCP_PORT}/mcp` })),
      }),
      (r) =>
        `demo organization ${r.organizationId}, project ${r.projectId}\nAPI key (shown once): ${r.apiKey}\nits id: ${r.apiKeyId} (to revoke it: npm run -s admin -- key revoke ${r.apiKeyId})`,
    ),
  );

const secrets = program
  .command('secrets')
  .description('secrets at rest and the keys that seal them (RUNWAY_ENCRYPTION_KEY)');
secrets
  .command('rekey')
  .description(
    'Re-seal every stored secret with the newest key (the first in RUNWAY_ENCRYPTION_KEY), then retire the older keys. ' +
      'Works in batches, each committed: safe to interrupt and run again; a secret already under the newest key is skipped.',
  )
  .addOption(new Option('--batch-size <rows>', 'rows per batch').argParser(positiveInt).default(500))
  .addOption(new Option('--max-batches <n>', 'stop after n batches (run again to carry on)').argParser(positiveInt))
  .addOption(json)
  .action(
    action<{ batchSize: number; maxBatches?: number }>(
      async ({ sql, box }, o) => ({
        ...(await rekeySecrets(sql, box, { batchSize: o.batchSize, maxBatches: o.maxBatches })),
      }),
      (r) =>
        r.complete
          ? `every secret is sealed with key ${r.keyId} (${r.resealed} re-sealed now)${r.retired.length ? `; retired key ${r.retired.join(', ')}: it can be dropped from RUNWAY_ENCRYPTION_KEY` : ''}`
          : `${r.resealed} secrets re-sealed with key ${r.keyId}; ${r.remaining} still sealed with an older key: run \`secrets rekey\` again to finish`,
    ),
  );
secrets
  .command('status')
  .description(
    'The keys this database records as in use, the keys this process holds, and how many secrets each key seals',
  )
  .addOption(json)
  .action(
    action<object>(
      async ({ sql, box }) => ({
        newest: box.newest.id,
        holds: box.keys.map((k) => k.id),
        recorded: (await recordedKeys(sql)).map((k) => ({
          id: k.id,
          recordedAt: k.recordedAt.toISOString(),
          retiredAt: k.retiredAt?.toISOString() ?? null,
        })),
        secrets: await secretsByKey(sql),
      }),
      (r) =>
        [
          `newest key ${r.newest}; this process holds ${r.holds.join(', ')}`,
          ...r.recorded.map(
            (k: { id: string; recordedAt: string; retiredAt: string | null }) =>
              `key ${k.id}: recorded ${k.recordedAt}${k.retiredAt ? `, retired ${k.retiredAt}` : ', in use'}`,
          ),
          ...Object.entries(r.secrets as Record<string, Record<string, number>>).map(
            ([column, byKey]) =>
              `${column}: ${Object.entries(byKey)
                .map(([k, n]) => `${n} under ${k}`)
                .join(', ')}`,
          ),
        ].join('\n'),
    ),
  );

/** An organization's OTLP target as the CLI shows it: the endpoint (its query hidden) and the header names only. */
const shownTarget = (target: OtlpTarget | undefined) =>
  target
    ? {
        endpoint: target.endpoint.replace(/\?.*$/, (query) => (query ? '?…' : '')),
        headers: Object.keys(target.headers).sort(),
      }
    : null;

const describeOtel = (r: {
  organizationId: string;
  target: { endpoint: string; headers: string[] } | null;
  cleared?: boolean;
}) =>
  r.target
    ? `organization ${r.organizationId}: eval traces also go to ${r.target.endpoint}` +
      (r.target.headers.length
        ? ` with headers ${r.target.headers.join(', ')} (values stored encrypted, not shown)`
        : '')
    : `organization ${r.organizationId}: ${r.cleared ? 'cleared; ' : ''}no OTLP endpoint of its own (only the deployment's, OTEL_EXPORTER_OTLP_*)`;

/** A header name as HTTP spells one. */
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const otel = program
  .command('otel')
  .description(
    "an organization's own OpenTelemetry (OTLP/HTTP) endpoint: every eval iteration's trace and each run's span of the organization also go there, besides the deployment's OTEL_EXPORTER_OTLP_* endpoint (docs/OPERATIONS.md#opentelemetry-export)",
  );
otel
  .command('show')
  .description("the organization's OTLP endpoint and the names of its headers")
  .requiredOption('--org <organizationId>')
  .addOption(json)
  .action(
    action<{ org: string }>(async ({ sql, box }, o) => {
      await requireOrganization(sql, o.org);
      return { organizationId: o.org, target: shownTarget(await createOtlpTargetStore(sql, box).get(o.org)) };
    }, describeOtel),
  );
otel
  .command('set')
  .description("set (or replace) the organization's OTLP endpoint and headers, stored encrypted")
  .requiredOption('--org <organizationId>')
  .requiredOption('--endpoint <url>', 'the OTLP/HTTP traces URL, e.g. https://otlp.example.com/v1/traces')
  .option('--header-stdin', 'headers sent with every export, as KEY=VALUE lines on standard input')
  .option('--header-env <KEY=NAME>', "header KEY, valued as this shell's variable NAME (repeat)", collect)
  .option('--header <KEY=VALUE>', 'a header sent with every export (repeat; visible in ps and shell history)', collect)
  .addOption(json)
  .addHelpText('after', secretsHelp)
  .action(
    action<{ org: string; endpoint: string; header?: string[]; headerEnv?: string[]; headerStdin?: boolean }>(
      async ({ sql, box }, o) => {
        await requireOrganization(sql, o.org);
        const problem = otlpEndpointProblem(o.endpoint);
        if (problem) throw new InvalidArgumentError(`--endpoint: ${problem}`);
        const host = new URL(o.endpoint).hostname.replace(/^\[|\]$/g, '');
        if (isIP(host) && classifyAddress(host) === 'refused')
          throw new InvalidArgumentError(`--endpoint: ${host} is a link-local or metadata address, never exported to`);
        const input = new StandardInput({ '--header-stdin': o.headerStdin });
        const headers = await pairedSecrets(
          'header',
          { pairs: o.header, env: o.headerEnv, stdin: o.headerStdin },
          input,
        );
        const wrong = Object.keys(headers).filter((name) => !headerName.test(name));
        if (wrong.length > 0) throw new InvalidArgumentError(`--header: not a header name: ${wrong.join(', ')}`);
        const target: OtlpTarget = {
          endpoint: o.endpoint,
          headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
        };
        await createOtlpTargetStore(sql, box).set(o.org, target);
        return { organizationId: o.org, target: shownTarget(target) };
      },
      describeOtel,
    ),
  );
otel
  .command('clear')
  .description("drop the organization's OTLP endpoint (its traces then go only to the deployment's)")
  .requiredOption('--org <organizationId>')
  .addOption(json)
  .action(
    action<{ org: string }>(async ({ sql, box }, o) => {
      await requireOrganization(sql, o.org);
      if (!(await createOtlpTargetStore(sql, box).clear(o.org)))
        throw new InvalidArgumentError(`organization ${o.org} has no OTLP endpoint of its own`);
      return { organizationId: o.org, target: null, cleared: true };
    }, describeOtel),
  );

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a whole number of at least 1');
  return n;
}

try {
  await program.parseAsync();
} catch (error) {
  // A key that does not open this database's secrets names the database, which may not be the one meant.
  const keyProblem = database && (error instanceof KeyMismatchError || error instanceof EncryptionKeyError);
  const message =
    describeDatabaseError(error, database) ??
    (error instanceof Error ? error.message : String(error)) +
      (keyProblem ? ` (database ${database!.label}, ${database!.source})` : '');
  console.error(`error: ${message}`);
  process.exit(1);
}
