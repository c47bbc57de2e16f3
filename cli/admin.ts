import { Command, Option } from 'commander';
import { addMembership, createApiKey, createOrganization, createUser, revokeApiKey } from '../db/accounts.js';
import { createChatbox, createChatSession } from '../db/catalog.js';
import { createSql, type Sql } from '../db/connection.js';
import { migrate } from '../db/migrate.js';
import { createProject } from '../db/projects.js';
import { setProviderKey } from '../db/providerKeys.js';
import { SecretBox } from '../db/secretBox.js';
import { createServer } from '../db/servers.js';
import { embeddedDatabaseUrl, localEncryptionKey } from './localStack.js';
import { seedDemo } from './seed.js';

// Operator CLI: `npm run admin -- <command>`. Talks to Postgres directly (DATABASE_URL, else the database of
// `npm start`), so it works before any API key exists. Every command takes --json for machine-readable output.

const program = new Command('runway-admin').description('Runway operator commands').showHelpAfterError();

interface Context {
  sql: Sql;
  box: SecretBox;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];
const pairs = (values: string[] | undefined): Record<string, string> =>
  Object.fromEntries((values ?? []).map((pair) => {
    const at = pair.indexOf('=');
    if (at < 1) throw new Error(`expected KEY=VALUE, got "${pair}"`);
    return [pair.slice(0, at), pair.slice(at + 1)];
  }));

/** Runs a command against the database and prints its result: JSON with --json, else readable lines. */
function action<O extends object>(run: (ctx: Context, options: O, args: string[]) => Promise<Record<string, unknown>>, describe: (result: any) => string) {
  return async (...received: unknown[]) => {
    const command = received.at(-1) as Command;
    const options = command.opts<O & { json?: boolean }>();
    const databaseUrl = process.env.DATABASE_URL ?? embeddedDatabaseUrl;
    const key = localEncryptionKey(!process.env.DATABASE_URL);
    if (!key) throw new Error('RUNWAY_ENCRYPTION_KEY is not set');
    const sql = createSql(databaseUrl, { max: 2 });
    try {
      await migrate(sql);
      const result = await run({ sql, box: SecretBox.fromSetting(key) }, options, command.args);
      console.log(options.json ? JSON.stringify(result, null, 2) : describe(result));
    } finally {
      await sql.end({ timeout: 5 });
    }
  };
}

const json = new Option('--json', 'print machine-readable JSON');

program
  .command('org')
  .description('organizations')
  .command('create')
  .requiredOption('--name <name>')
  .addOption(json)
  .action(action<{ name: string }>(async ({ sql }, o) => createOrganization(sql, { name: o.name }), (r) => `organization ${r.id} (${r.name})`));

program
  .command('user')
  .description('users')
  .command('create')
  .requiredOption('--email <email>')
  .requiredOption('--name <name>')
  .option('--org <organizationId>', 'also make the user a member of this organization')
  .addOption(new Option('--role <role>', 'role in --org').choices(['owner', 'admin', 'member']).default('member'))
  .addOption(json)
  .action(action<{ email: string; name: string; org?: string; role: 'owner' | 'admin' | 'member' }>(async ({ sql }, o) => {
    const user = await createUser(sql, { email: o.email, name: o.name });
    if (o.org) await addMembership(sql, { organizationId: o.org, userId: user.id, role: o.role });
    return { ...user, ...(o.org ? { organizationId: o.org, role: o.role } : {}) };
  }, (r) => `user ${r.id} (${r.email})${r.organizationId ? `, ${r.role} of ${r.organizationId}` : ''}`));

program
  .command('member')
  .description('organization memberships')
  .command('add')
  .requiredOption('--org <organizationId>')
  .requiredOption('--user <userId>')
  .addOption(new Option('--role <role>').choices(['owner', 'admin', 'member']).default('member'))
  .addOption(json)
  .action(action<{ org: string; user: string; role: 'owner' | 'admin' | 'member' }>(async ({ sql }, o) => {
    await addMembership(sql, { organizationId: o.org, userId: o.user, role: o.role });
    return { organizationId: o.org, userId: o.user, role: o.role };
  }, (r) => `${r.userId} is ${r.role} of ${r.organizationId}`));

program
  .command('project')
  .description('projects')
  .command('create')
  .requiredOption('--org <organizationId>')
  .requiredOption('--name <name>')
  .option('--description <text>', '', '')
  .option('--private', 'visible only to its members and org owners/admins')
  .option('--default', "the organization's default project (used by eval ingest's `default`)")
  .addOption(json)
  .action(action<{ org: string; name: string; description: string; private?: boolean; default?: boolean }>(async ({ sql }, o) =>
    createProject(sql, { organizationId: o.org, name: o.name, description: o.description, visibility: o.private ? 'private' : 'organization', isDefault: o.default }),
  (r) => `project ${r.id} (${r.name})`));

program
  .command('server')
  .description('saved MCP servers')
  .command('create')
  .requiredOption('--project <projectId>')
  .requiredOption('--name <name>')
  .addOption(new Option('--transport <type>').choices(['stdio', 'http', 'sse']).makeOptionMandatory())
  .option('--command <command>', 'stdio: the program to spawn')
  .option('--arg <arg>', 'stdio: an argument (repeat)', collect)
  .option('--env <KEY=VALUE>', 'stdio: an environment variable (repeat; stored encrypted)', collect)
  .option('--url <url>', 'http/sse: the server URL')
  .option('--header <KEY=VALUE>', 'http/sse: a header sent on every request (repeat; stored encrypted)', collect)
  .option('--oauth', 'the server requires an OAuth grant')
  .option('--scope <scope>', 'OAuth scope (repeat)', collect)
  .option('--client-id <id>', 'OAuth client id')
  .option('--client-secret <secret>', 'OAuth client secret (stored encrypted)')
  .option('--request-timeout-ms <ms>', 'per-server request timeout', Number)
  .option('--disabled', 'save it disabled')
  .addOption(json)
  .action(action<{
    project: string; name: string; transport: 'stdio' | 'http' | 'sse'; command?: string; arg?: string[]; env?: string[]; url?: string;
    header?: string[]; oauth?: boolean; scope?: string[]; clientId?: string; clientSecret?: string; requestTimeoutMs?: number; disabled?: boolean;
  }>(async ({ sql, box }, o) => {
    if (o.transport === 'stdio' && !o.command) throw new Error('--command is required for stdio servers');
    if (o.transport !== 'stdio' && !o.url) throw new Error('--url is required for http and sse servers');
    return await createServer(sql, box, {
      projectId: o.project, name: o.name, transportType: o.transport, command: o.command, args: o.arg, env: pairs(o.env),
      url: o.url, headers: pairs(o.header), useOAuth: o.oauth, oauthScopes: o.scope, oauthClientId: o.clientId,
      clientSecret: o.clientSecret, enabled: !o.disabled, timeouts: o.requestTimeoutMs ? { requestMs: o.requestTimeoutMs } : {},
    });
  }, (r) => `server ${r.id} (${r.name}, ${r.transportType})`));

const key = program.command('key').description('API keys');
key
  .command('create')
  .requiredOption('--org <organizationId>')
  .requiredOption('--user <userId>', 'the key acts as this user inside the organization')
  .option('--name <name>', 'a label for the key', 'cli key')
  .addOption(json)
  .action(action<{ org: string; user: string; name: string }>(async ({ sql }, o) => {
    const created = await createApiKey(sql, { name: o.name, organizationId: o.org, userId: o.user });
    return { id: created.id, name: created.name, apiKey: created.key };
  }, (r) => `key ${r.id} created; its value is shown only now:\n${r.apiKey}`));
key
  .command('revoke')
  .argument('<keyId>')
  .addOption(json)
  .action(action<object>(async ({ sql }, _o, [keyId]) => {
    if (!(await revokeApiKey(sql, keyId))) throw new Error(`no active key ${keyId}`);
    return { id: keyId, revoked: true };
  }, (r) => `key ${r.id} revoked`));

program
  .command('provider-key')
  .description("organization model provider keys (hosted catalog models run on them)")
  .command('set')
  .requiredOption('--org <organizationId>')
  .requiredOption('--provider <provider>', 'openai, anthropic, google, openrouter, ollama or openai-compatible')
  .requiredOption('--api-key <key>', 'stored encrypted')
  .option('--base-url <url>', 'an OpenAI-compatible endpoint, a proxy or a local model server')
  .addOption(json)
  .action(action<{ org: string; provider: string; apiKey: string; baseUrl?: string }>(async ({ sql, box }, o) => {
    await setProviderKey(sql, box, { organizationId: o.org, provider: o.provider, apiKey: o.apiKey, baseUrl: o.baseUrl });
    return { organizationId: o.org, provider: o.provider, baseUrl: o.baseUrl ?? null };
  }, (r) => `provider ${r.provider} configured for ${r.organizationId}`));

program
  .command('chatbox')
  .description('published chatboxes')
  .command('create')
  .requiredOption('--project <projectId>')
  .requiredOption('--name <name>')
  .requiredOption('--model <modelId>')
  .option('--server <serverId>', 'an attached server (repeat)', collect)
  .option('--host <hostId>')
  .option('--system-prompt <text>')
  .option('--description <text>')
  .addOption(new Option('--mode <mode>').choices(['project_members', 'invited_only', 'anyone_with_link']).default('project_members'))
  .option('--require-tool-approval')
  .addOption(json)
  .action(action<{ project: string; name: string; model: string; server?: string[]; host?: string; systemPrompt?: string; description?: string; mode: 'project_members'; requireToolApproval?: boolean }>(async ({ sql }, o) =>
    createChatbox(sql, { projectId: o.project, name: o.name, modelId: o.model, serverIds: o.server, hostId: o.host, systemPrompt: o.systemPrompt, description: o.description, mode: o.mode, requireToolApproval: o.requireToolApproval }),
  (r) => `chatbox ${r.id}`));

program
  .command('chat-session')
  .description('chat session records')
  .command('create')
  .requiredOption('--project <projectId>')
  .requiredOption('--user <userId>')
  .option('--title <title>')
  .addOption(new Option('--status <status>').choices(['active', 'archived']).default('active'))
  .addOption(new Option('--visibility <visibility>').choices(['private', 'project']).default('private'))
  .addOption(json)
  .action(action<{ project: string; user: string; title?: string; status: 'active' | 'archived'; visibility: 'private' | 'project' }>(async ({ sql }, o) =>
    createChatSession(sql, { projectId: o.project, userId: o.user, title: o.title, status: o.status, visibility: o.visibility }),
  (r) => `chat session ${r.id}`));

program
  .command('seed')
  .description('seed data')
  .requiredOption('--demo', 'a demo organization, project, two servers (everything over stdio and HTTP) and a key')
  .option('--http-url <url>', 'URL of the streamable HTTP demo server', `http://127.0.0.1:${process.env.DEMO_MCP_PORT ?? 3001}/mcp`)
  .addOption(json)
  .action(action<{ httpUrl: string }>(async ({ sql, box }, o) => ({ ...(await seedDemo(sql, box, { httpUrl: o.httpUrl })) }),
    (r) => `demo organization ${r.organizationId}, project ${r.projectId}\nAPI key (shown once): ${r.apiKey}`));

try {
  await program.parseAsync();
} catch (error) {
  console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
