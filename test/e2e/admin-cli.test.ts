import { execFile, spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getProviderKeys } from '../../db/providerKeys.js';
import { SecretBox } from '../../db/secretBox.js';
import { getSavedServersByIds } from '../../db/servers.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { apiClient } from '../helpers/http.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';
import { fakeRunningStack } from '../helpers/stackRecord.js';
import { freePort } from '../helpers/ports.js';
import { entryArgs } from '../helpers/entryPoints.js';

const run = promisify(execFile);
const root = new URL('../..', import.meta.url).pathname;

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI as a process with `input` on its standard input; the environment is the test's, minus any key. */
function runAdmin(args: string[], options: { env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<Outcome> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.RUNWAY_ENCRYPTION_KEY;
  delete env.RUNWAY_DATA_DIR;
  const child = spawn(process.execPath, [...entryArgs('cli/admin.ts'), ...args], {
    cwd: root,
    env: { ...env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  child.stdin.end(options.input ?? '');
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

describe('operator CLI (npm run admin)', () => {
  let stack: TestStack;
  const dataDir = mkdtempSync(join(tmpdir(), 'runway-admin-'));
  const admin = async (...args: string[]) => {
    const { stdout } = await run(process.execPath, [...entryArgs('cli/admin.ts'), ...args], {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: stack.db.url,
        RUNWAY_ENCRYPTION_KEY: stack.config.RUNWAY_ENCRYPTION_KEY,
        RUNWAY_DATA_DIR: dataDir,
      },
    });
    return args.includes('--json') ? JSON.parse(stdout) : stdout;
  };

  /** The stack's database and key, for runAdmin (which, unlike admin, also answers failures). */
  const env = () => ({ DATABASE_URL: stack.db.url, RUNWAY_ENCRYPTION_KEY: stack.config.RUNWAY_ENCRYPTION_KEY });

  beforeAll(async () => {
    stack = await startTestStack({ worker: false });
  });
  afterAll(async () => {
    await stack?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('seed --demo --json prints the demo key, organization, project and servers', async () => {
    const seeded = await admin('seed', '--demo', '--json');
    expect(seeded).toEqual({
      apiKey: expect.stringMatching(/^sk_\w{40}$/),
      apiKeyId: expect.stringMatching(/^key_/),
      organizationId: expect.stringMatching(/^org_/),
      projectId: expect.stringMatching(/^prj_/),
      servers: [
        { id: expect.stringMatching(/^srv_/), name: 'everything (stdio)', transportType: 'stdio' },
        { id: expect.stringMatching(/^srv_/), name: 'everything (http)', transportType: 'http' },
      ],
    });
    const servers = await apiClient(stack.baseUrl, seeded.apiKey)('GET', `/projects/${seeded.projectId}/servers`);
    expect(servers.body.items.map((s: { name: string }) => s.name)).toEqual([
      'everything (stdio)',
      'everything (http)',
    ]);
  });

  it('follows the README: organization, user, project, server, key, then curl; revoke stops the key', async () => {
    const org = await admin('org', 'create', '--name', 'Acme', '--json');
    const user = await admin(
      'user',
      'create',
      '--email',
      'ops@acme.test',
      '--name',
      'Ops',
      '--org',
      org.id,
      '--role',
      'owner',
      '--json',
    );
    const project = await admin('project', 'create', '--org', org.id, '--name', 'Tools', '--default', '--json');
    const server = await admin(
      'server',
      'create',
      '--project',
      project.id,
      '--name',
      'weather',
      '--transport',
      'http',
      '--url',
      'https://weather.example/mcp',
      '--header',
      'x-api-key=topsecret',
      '--oauth',
      '--scope',
      'read',
      '--json',
    );
    const key = await admin('key', 'create', '--org', org.id, '--user', user.id, '--json');
    expect(key.apiKey).toMatch(/^sk_/);

    const call = apiClient(stack.baseUrl, key.apiKey);
    expect((await call('GET', '/projects')).body.items).toEqual([
      expect.objectContaining({ id: project.id, name: 'Tools', role: 'owner' }),
    ]);
    const servers = await call('GET', `/projects/${project.id}/servers`);
    expect(servers.body.items).toEqual([
      expect.objectContaining({ id: server.id, name: 'weather', useOAuth: true, oauthScopes: ['read'] }),
    ]);
    expect(JSON.stringify(servers.body)).not.toContain('topsecret');

    const revoked = await admin('key', 'revoke', key.id, '--json');
    expect(revoked).toEqual({ id: key.id, name: 'cli key', revoked: true });
    expect((await call('GET', '/me')).status).toBe(401);
  });

  it('key list shows ids, names, prefixes, owners and states, never a value; revoke takes the id or the sk_ value', async () => {
    const org = await admin('org', 'create', '--name', 'Keyed', '--json');
    const user = await admin(
      'user',
      'create',
      '--email',
      'keys@keyed.test',
      '--name',
      'Keys',
      '--org',
      org.id,
      '--role',
      'owner',
      '--json',
    );
    const first = await admin('key', 'create', '--org', org.id, '--user', user.id, '--name', 'ci', '--json');
    const second = await admin('key', 'create', '--org', org.id, '--user', user.id, '--name', 'laptop', '--json');
    const listed = await admin('key', 'list', '--org', org.id, '--json');
    expect(listed).toEqual([
      expect.objectContaining({
        id: first.id,
        name: 'ci',
        prefix: first.apiKey.slice(0, 7),
        organizationId: org.id,
        userId: user.id,
        userEmail: 'keys@keyed.test',
        status: 'active',
        revokedAt: null,
      }),
      expect.objectContaining({ id: second.id, name: 'laptop', status: 'active' }),
    ]);
    expect(JSON.stringify(listed)).not.toContain(first.apiKey.slice(7, 20));

    // The value is looked up by its hash; it is never printed back.
    const byValue = await runAdmin(['key', 'revoke', second.apiKey], { env: env() });
    expect(byValue).toMatchObject({ code: 0, stdout: `key ${second.id} (laptop) revoked\n` });
    expect(byValue.stdout + byValue.stderr).not.toContain(second.apiKey);
    const again = await runAdmin(['key', 'revoke', second.id], { env: env() });
    expect(again).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(new RegExp(`^key ${second.id} \\(laptop\\) was already revoked, at \\d{4}-`)),
    });
    const table = await admin('key', 'list', '--org', org.id);
    expect(table).toMatch(/^ID\s+NAME\s+PREFIX\s+ORGANIZATION\s+USER\s+STATUS\s+CREATED\s+REVOKED$/m);
    expect(table).toMatch(
      new RegExp(`^${first.id}\\s+ci\\s+sk_\\w{4}…\\s+${org.id}\\s+keys@keyed\\.test\\s+active\\s`, 'm'),
    );
    expect(table).toMatch(new RegExp(`^${second.id}\\s+laptop\\s+.*\\srevoked\\s`, 'm'));
    expect(table).not.toContain(first.apiKey);

    const unknownValue = await runAdmin(['key', 'revoke', 'sk_thisValueIsNotAKeyOfThisDatabase000000'], { env: env() });
    expect(unknownValue).toMatchObject({
      code: 1,
      stderr: 'error: no key has that value (see: npm run -s admin -- key list)\n',
    });
    expect(await runAdmin(['key', 'revoke', 'key_missing'], { env: env() })).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('no key key_missing'),
    });
  }, 120_000);

  it('org, user, project and server list show what exists, with the ids the other commands take', async () => {
    const org = await admin('org', 'create', '--name', 'Listed', '--json');
    const user = await admin(
      'user',
      'create',
      '--email',
      'list@listed.test',
      '--name',
      'Lister',
      '--org',
      org.id,
      '--role',
      'admin',
      '--json',
    );
    const project = await admin('project', 'create', '--org', org.id, '--name', 'Listed tools', '--default', '--json');
    const server = await admin(
      'server',
      'create',
      '--project',
      project.id,
      '--name',
      'listed',
      '--transport',
      'http',
      '--url',
      'https://listed.example/mcp',
      '--header',
      'x-api-key=do-not-list-me',
      '--json',
    );
    expect(await admin('org', 'list', '--json')).toContainEqual(
      expect.objectContaining({ id: org.id, name: 'Listed', members: 1, projects: 1 }),
    );
    expect(await admin('user', 'list', '--org', org.id, '--json')).toEqual([
      expect.objectContaining({ id: user.id, email: 'list@listed.test', name: 'Lister', role: 'admin' }),
    ]);
    expect(await admin('user', 'list', '--json')).toContainEqual(expect.objectContaining({ id: user.id }));
    expect(await admin('project', 'list', '--org', org.id, '--json')).toEqual([
      expect.objectContaining({
        id: project.id,
        organizationId: org.id,
        name: 'Listed tools',
        isDefault: true,
        visibility: 'organization',
      }),
    ]);
    const servers = await admin('server', 'list', '--project', project.id, '--json');
    expect(servers).toEqual([
      expect.objectContaining({
        id: server.id,
        projectId: project.id,
        name: 'listed',
        transportType: 'http',
        enabled: true,
        url: 'https://listed.example/mcp',
      }),
    ]);
    expect(JSON.stringify(servers)).not.toContain('do-not-list-me');
    expect(await admin('server', 'list', '--org', org.id)).toMatch(
      new RegExp(`^${server.id}\\s+${project.id}\\s+listed\\s+http\\s+yes\\s+https://listed\\.example/mcp$`, 'm'),
    );
    expect(await admin('org', 'list')).toMatch(new RegExp(`^${org.id}\\s+Listed\\s+1\\s+1\\s`, 'm'));
    expect(await runAdmin(['project', 'list', '--org', 'org_missing'], { env: env() })).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('no organization org_missing'),
    });
  }, 120_000);

  it('turns mistakes into sentences, checks before it writes, and writes nothing half', async () => {
    const org = await admin('org', 'create', '--name', 'Careful', '--json');
    const member = await admin(
      'user',
      'create',
      '--email',
      'member@careful.test',
      '--name',
      'Member',
      '--org',
      org.id,
      '--json',
    );
    const outsider = await admin(
      'user',
      'create',
      '--email',
      'outsider@elsewhere.test',
      '--name',
      'Outsider',
      '--json',
    );
    const project = await admin('project', 'create', '--org', org.id, '--name', 'First', '--default', '--json');
    const attempts: [string[], string][] = [
      [
        ['user', 'create', '--email', 'member@careful.test', '--name', 'Again'],
        `a user with the email member@careful.test already exists: ${member.id}`,
      ],
      [
        ['user', 'create', '--email', 'ghost@careful.test', '--name', 'Ghost', '--org', 'org_missing'],
        'no organization org_missing (see: npm run -s admin -- org list)',
      ],
      [
        ['member', 'add', '--org', org.id, '--user', 'usr_missing'],
        'no user usr_missing (see: npm run -s admin -- user list)',
      ],
      [['member', 'add', '--org', 'org_missing', '--user', member.id], 'no organization org_missing'],
      [['project', 'create', '--org', 'org_missing', '--name', 'Nowhere'], 'no organization org_missing'],
      // Only the database knows this one: its unique index answers, and the answer is still a sentence.
      [
        ['project', 'create', '--org', org.id, '--name', 'Second', '--default'],
        'the organization already has a default project; create this one without --default',
      ],
      [
        [
          'server',
          'create',
          '--project',
          'prj_missing',
          '--name',
          'x',
          '--transport',
          'http',
          '--url',
          'https://x.example/mcp',
        ],
        'no project prj_missing (see: npm run -s admin -- project list)',
      ],
      [
        ['key', 'create', '--org', org.id, '--user', outsider.id],
        `user ${outsider.id} (outsider@elsewhere.test) is not a member of organization ${org.id}; add them first: npm run -s admin -- member add --org ${org.id} --user ${outsider.id}`,
      ],
      [['key', 'create', '--org', org.id, '--user', 'usr_missing'], 'no user usr_missing'],
      [
        ['chat-session', 'create', '--project', project.id, '--user', outsider.id],
        `is not a member of organization ${org.id}`,
      ],
      [
        [
          'chatbox',
          'create',
          '--project',
          project.id,
          '--name',
          'c',
          '--model',
          'openai/gpt-4.1-mini',
          '--server',
          'srv_missing',
        ],
        `project ${project.id} has no server srv_missing`,
      ],
      [
        ['provider-key', 'set', '--org', 'org_missing', '--provider', 'openai', '--api-key-env', 'HOME'],
        'no organization org_missing',
      ],
    ];
    for (const [args, sentence] of attempts) {
      const outcome = await runAdmin(args, { env: env() });
      expect(outcome, args.join(' ')).toMatchObject({ code: 1, stderr: expect.stringContaining(sentence) });
      expect(outcome.stderr, args.join(' ')).toMatch(/^error: [^\n]+\n$/);
      expect(outcome.stderr).not.toMatch(/violates|duplicate key|constraint/);
    }
    // Nothing was written by the refused commands.
    expect(await stack.sql`SELECT 1 FROM users WHERE email = 'ghost@careful.test'`).toHaveLength(0);
    expect(await stack.sql`SELECT 1 FROM api_keys WHERE user_id = ${outsider.id}`).toHaveLength(0);
    expect(await stack.sql`SELECT name FROM projects WHERE organization_id = ${org.id}`).toEqual([{ name: 'First' }]);
  }, 120_000);

  it('every command says what it does in --help', async () => {
    const groups = [
      'org',
      'user',
      'member',
      'project',
      'server',
      'key',
      'provider-key',
      'chatbox',
      'chat-session',
      'secrets',
      'retention',
    ];
    const helps = await Promise.all(groups.map((group) => runAdmin([group, '--help'])));
    for (const [i, help] of helps.entries()) {
      const commands =
        help.stdout
          .split('Commands:')[1]
          ?.split('\n')
          .filter((line) => /^ {2}\S/.test(line) && !line.startsWith('  help ')) ?? [];
      expect(commands.length, groups[i]).toBeGreaterThan(0);
      // `  name [options] <args>   what it does`: a command without a description ends after its arguments.
      for (const line of commands)
        expect(line, `${groups[i]}: ${line}`).toMatch(/^ {2}\S+(?: \[options\])?(?: [<[][^>\]]+[>\]])*\s{2,}\S/);
    }
    expect(helps[0].stdout).toMatch(/^ {2}list \[options\]\s+every organization/m);
  }, 120_000);

  it('fails clearly on bad input', async () => {
    await expect(
      admin('server', 'create', '--project', 'prj_x', '--name', 'x', '--transport', 'stdio'),
    ).rejects.toMatchObject({
      stderr: expect.stringContaining('--command is required for stdio servers'),
    });
    await expect(admin('key', 'revoke', 'key_missing')).rejects.toMatchObject({
      stderr: expect.stringContaining('no key key_missing'),
    });
  });

  describe('where the database is: the npm start that runs in the data folder (issue 29 §7)', () => {
    /** Another shell: none of the stack's own settings, only the data folder (the checkout's .data by default). */
    const elsewhere = (dataDir: string, more: NodeJS.ProcessEnv = {}) => ({
      DATABASE_URL: undefined,
      EMBEDDED_POSTGRES_PORT: undefined,
      RUNWAY_DATA_DIR: dataDir,
      RUNWAY_ENCRYPTION_KEY: stack.config.RUNWAY_ENCRYPTION_KEY,
      ...more,
    });

    it('without DATABASE_URL or EMBEDDED_POSTGRES_PORT, uses the database npm start recorded in stack.json', async () => {
      const org = await admin('org', 'create', '--name', 'Found through stack.json', '--json');
      const running = await fakeRunningStack({
        url: 'http://localhost:3999',
        databaseUrl: stack.db.url,
        embeddedDatabase: false,
      });
      try {
        const listed = await runAdmin(['org', 'list', '--json'], { env: elsewhere(running.dataDir) });
        expect(listed.code, listed.stderr).toBe(0);
        expect(JSON.parse(listed.stdout)).toContainEqual(expect.objectContaining({ id: org.id }));
      } finally {
        await running.stop();
      }
    });

    it('names the database it could not reach (host:port/db) and where it took it from, never a password', async () => {
      const port = await freePort();
      const running = await fakeRunningStack({
        url: 'http://localhost:3999',
        databaseUrl: `postgres://runway@127.0.0.1:${port}/runway`,
        embeddedDatabase: true,
      });
      try {
        const recorded = await runAdmin(['org', 'list'], { env: elsewhere(running.dataDir) });
        expect(recorded.code).toBe(1);
        expect(recorded.stderr).toContain(`cannot reach the database 127.0.0.1:${port}/runway (ECONNREFUSED)`);
        expect(recorded.stderr).toContain(`the npm start running in ${running.dataDir} (pid ${running.record.pid})`);
        expect(recorded.stderr).not.toContain('runway:runway');
        // Its own setting wins over the record.
        const other = await freePort();
        const own = await runAdmin(['org', 'list'], {
          env: elsewhere(running.dataDir, { EMBEDDED_POSTGRES_PORT: String(other) }),
        });
        expect(own.stderr).toContain(`cannot reach the database 127.0.0.1:${other}/runway (ECONNREFUSED)`);
        expect(own.stderr).toContain('EMBEDDED_POSTGRES_PORT');
      } finally {
        await running.stop();
      }
      const url = new URL(stack.db.url);
      url.password = 'sekrit-pw';
      url.pathname = '/no_such_database_29';
      const missing = await runAdmin(['org', 'list'], { env: { DATABASE_URL: url.toString() } });
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain(`${url.hostname}:${url.port}/no_such_database_29`);
      expect(missing.stderr).toContain('DATABASE_URL');
      expect(missing.stderr).not.toContain('sekrit-pw');
    });

    it('a key that does not fit names the database whose secrets it does not open', async () => {
      const wrongKey = Buffer.alloc(32, 9).toString('base64');
      const refused = await runAdmin(['org', 'list'], {
        env: { DATABASE_URL: stack.db.url, RUNWAY_ENCRYPTION_KEY: wrongKey },
      });
      expect(refused.code).toBe(1);
      const url = new URL(stack.db.url);
      expect(refused.stderr).toContain(`${url.hostname}:${url.port}${url.pathname}`);
    });

    it('a record whose npm start is gone is ignored', async () => {
      const running = await fakeRunningStack({
        url: 'http://localhost:3999',
        databaseUrl: stack.db.url,
        embeddedDatabase: false,
      });
      const dataDir = `${running.dataDir}-kept`;
      // The same record, its process gone (killed: nothing removed the file).
      cpSync(running.dataDir, dataDir, { recursive: true });
      await running.stop();
      try {
        const stale = await runAdmin(['org', 'list'], {
          env: elsewhere(dataDir, { EMBEDDED_POSTGRES_PORT: undefined }),
        });
        // Not the recorded database: the embedded default (nothing there), named as such.
        const url = new URL(stack.db.url);
        expect(stale.stderr).not.toContain(`${url.hostname}:${url.port}${url.pathname}`);
        expect(stale.stderr).toMatch(/127\.0\.0\.1:54329\/runway|EMBEDDED_POSTGRES_PORT/);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });

  describe('server timeouts and working directory', () => {
    const env = () => ({ DATABASE_URL: stack.db.url, RUNWAY_ENCRYPTION_KEY: stack.config.RUNWAY_ENCRYPTION_KEY });
    let project: { id: string };
    beforeAll(async () => {
      const org = await admin('org', 'create', '--name', 'Timeouts', '--json');
      project = await admin('project', 'create', '--org', org.id, '--name', 'Slow starters', '--json');
    });
    const savedServer = async (id: string) => (await getSavedServersByIds(stack.sql, stack.box, project.id, [id]))[0];
    const createStdio = (...args: string[]) =>
      runAdmin(
        ['server', 'create', '--project', project.id, '--transport', 'stdio', '--command', 'npx', ...args, '--json'],
        { env: env() },
      );

    it('server create takes every per-server timeout and a working directory', async () => {
      const created = await createStdio(
        '--name',
        'playwright',
        '--arg',
        '-y',
        '--arg',
        '@playwright/mcp',
        '--cwd',
        '/srv/mcp/playwright/',
        '--connect-timeout-ms',
        '15000',
        '--initialize-timeout-ms',
        '60000',
        '--request-timeout-ms',
        '45000',
        '--max-total-timeout-ms',
        '300000',
      );
      expect(created).toMatchObject({ code: 0, stderr: '' });
      expect(await savedServer(JSON.parse(created.stdout).id)).toMatchObject({
        cwd: '/srv/mcp/playwright',
        timeouts: { connectMs: 15_000, initializeMs: 60_000, requestMs: 45_000, maxTotalMs: 300_000 },
      });
      const plain = await createStdio('--name', 'defaults');
      expect(await savedServer(JSON.parse(plain.stdout).id)).toMatchObject({ cwd: null, timeouts: {} });
    });

    it('server update changes timeouts (keeping the others), the working directory, and clears them', async () => {
      const { id } = JSON.parse((await createStdio('--name', 'cold', '--request-timeout-ms', '5000')).stdout);
      const before = await savedServer(id);
      const updated = await runAdmin(
        ['server', 'update', id, '--initialize-timeout-ms', '90000', '--cwd', '/var/lib/cold', '--json'],
        { env: env() },
      );
      expect(updated).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(updated.stdout)).toMatchObject({
        id,
        name: 'cold',
        cwd: '/var/lib/cold',
        timeouts: { requestMs: 5000, initializeMs: 90_000 },
      });
      const after = await savedServer(id);
      expect(after).toMatchObject({ cwd: '/var/lib/cold', timeouts: { requestMs: 5000, initializeMs: 90_000 } });
      // An edited server gets a new session.
      expect(after.revision).toBeGreaterThan(before.revision);

      const human = await runAdmin(
        ['server', 'update', id, '--clear-cwd', '--clear-timeouts', '--connect-timeout-ms', '20000'],
        { env: env() },
      );
      expect(human).toMatchObject({ code: 0, stderr: '' });
      expect(human.stdout).toContain('working directory: its own, under the data folder');
      expect(await savedServer(id)).toMatchObject({ cwd: null, timeouts: { connectMs: 20_000 } });
    });

    it('server create and update set the roots a host may list (normalized), shown in their output; none by default', async () => {
      const created = await createStdio(
        '--name',
        'files',
        '--allowed-root',
        'file:///srv/docs/',
        '--allowed-root',
        'file:///srv/data/../shared',
      );
      expect(created).toMatchObject({ code: 0, stderr: '' });
      const { id, allowedRoots } = JSON.parse(created.stdout);
      expect(allowedRoots).toEqual(['file:///srv/docs', 'file:///srv/shared']);
      expect(await savedServer(id)).toMatchObject({ allowedRoots: ['file:///srv/docs', 'file:///srv/shared'] });
      expect((await savedServer(JSON.parse((await createStdio('--name', 'none')).stdout).id)).allowedRoots).toEqual([]);

      const replaced = await runAdmin(['server', 'update', id, '--allowed-root', 'file:///srv/docs/public'], {
        env: env(),
      });
      expect(replaced).toMatchObject({ code: 0, stderr: '' });
      expect(replaced.stdout).toContain('roots a host may list: file:///srv/docs/public');
      const cleared = await runAdmin(['server', 'update', id, '--clear-allowed-roots'], { env: env() });
      expect(cleared.stdout).toContain('roots a host may list: none');
      expect(await savedServer(id)).toMatchObject({ allowedRoots: [] });

      const notFile = await createStdio('--name', 'bad', '--allowed-root', 'https://example.com/');
      expect(notFile).toMatchObject({ code: 1, stderr: expect.stringContaining('must be a file:// URI') });
      const onHttp = await runAdmin(
        [
          'server',
          'create',
          '--project',
          project.id,
          '--name',
          'h',
          '--transport',
          'http',
          '--url',
          'https://h.example/mcp',
        ].concat(['--allowed-root', 'file:///srv']),
        { env: env() },
      );
      expect(onHttp).toMatchObject({ code: 1, stderr: expect.stringContaining('--allowed-root is for stdio servers') });
    });

    it('refuses a relative or misplaced working directory, a bad timeout, and an update that changes nothing', async () => {
      const relative = await createStdio('--name', 'relative', '--cwd', 'servers/playwright');
      expect(relative).toMatchObject({ code: 1, stderr: expect.stringContaining('must be an absolute path') });
      const onHttp = await runAdmin(
        [
          'server',
          'create',
          '--project',
          project.id,
          '--name',
          'h',
          '--transport',
          'http',
          '--url',
          'https://h.example/mcp',
          '--cwd',
          '/tmp',
        ],
        { env: env() },
      );
      expect(onHttp).toMatchObject({ code: 1, stderr: expect.stringContaining('--cwd is for stdio servers') });
      for (const value of ['0', '-5', '1.5', 'soon']) {
        const bad = await createStdio('--name', 'bad', '--initialize-timeout-ms', value);
        expect(bad, value).toMatchObject({ code: 1, stderr: expect.stringContaining('a whole number of at least 1') });
      }
      const { id } = JSON.parse((await createStdio('--name', 'kept')).stdout);
      expect(await runAdmin(['server', 'update', id, '--cwd', './here'], { env: env() })).toMatchObject({
        code: 1,
        stderr: expect.stringContaining('must be an absolute path'),
      });
      expect(await runAdmin(['server', 'update', id], { env: env() })).toMatchObject({
        code: 1,
        stderr: expect.stringContaining('nothing to change'),
      });
      expect(await runAdmin(['server', 'update', id, '--cwd', '/a', '--clear-cwd'], { env: env() })).toMatchObject({
        code: 1,
        stderr: expect.stringContaining('give only one of --cwd and --clear-cwd'),
      });
      expect(
        await runAdmin(['server', 'update', 'srv_missing', '--request-timeout-ms', '10'], { env: env() }),
      ).toMatchObject({ code: 1, stderr: expect.stringContaining('no server srv_missing') });
      expect(await savedServer(id)).toMatchObject({ cwd: null, timeouts: {} });
    });
  });

  it('server client-profile sets what the MCP client declares to a server and how it answers, and clears it', async () => {
    const org = await admin('org', 'create', '--name', 'Profiles', '--json');
    const project = await admin('project', 'create', '--org', org.id, '--name', 'Profiled', '--json');
    const server = await admin(
      'server',
      'create',
      '--project',
      project.id,
      '--name',
      'forms',
      '--transport',
      'http',
      '--url',
      'https://forms.example/mcp',
      '--json',
    );
    const saved = async () => (await getSavedServersByIds(stack.sql, stack.box, project.id, [server.id]))[0];
    expect((await saved()).clientProfile).toEqual({});

    const set = await admin(
      'server',
      'client-profile',
      server.id,
      '--elicitation',
      'defaults',
      '--elicitation-content',
      '{"note":"to go"}',
      '--sampling',
      '--root',
      'work=file:///srv/work',
      '--root',
      'file:///tmp',
      '--json',
    );
    const profile = {
      elicitation: { answer: { mode: 'defaults', content: { note: 'to go' } } },
      sampling: {},
      roots: [{ uri: 'file:///srv/work', name: 'work' }, { uri: 'file:///tmp' }],
    };
    expect(set).toEqual({ id: server.id, name: 'forms', clientProfile: profile });
    expect(await saved()).toMatchObject({ clientProfile: profile, revision: 2 });
    expect(await admin('server', 'client-profile', server.id, '--elicitation', 'decline')).toMatch(
      /declares elicitation, answered \{"action":"decline"\}/,
    );

    expect(await admin('server', 'client-profile', server.id, '--clear', '--json')).toEqual({
      id: server.id,
      name: 'forms',
      clientProfile: {},
    });
    expect((await saved()).clientProfile).toEqual({});

    for (const [args, message] of [
      [['--elicitation', 'accept', '--elicitation-content', '{"size": {"nested": 1}}'], 'elicitation.answer'],
      [['--root', 'https://example.test/'], 'a root is a file:// URI'],
      [[], 'give --clear, or the features'],
    ] as const) {
      await expect(admin('server', 'client-profile', server.id, ...args), args.join(' ')).rejects.toMatchObject({
        stderr: expect.stringContaining(message),
      });
    }
    await expect(admin('server', 'client-profile', 'srv_missing', '--sampling')).rejects.toMatchObject({
      stderr: expect.stringContaining('no server srv_missing'),
    });
  }, 120_000);

  describe('secrets never need to be arguments', () => {
    const env = () => ({ DATABASE_URL: stack.db.url, RUNWAY_ENCRYPTION_KEY: stack.config.RUNWAY_ENCRYPTION_KEY });
    let org: { id: string };
    let project: { id: string };
    beforeAll(async () => {
      org = await admin('org', 'create', '--name', 'Quiet', '--json');
      project = await admin('project', 'create', '--org', org.id, '--name', 'Quiet tools', '--json');
    });
    const savedServer = async (id: string) => (await getSavedServersByIds(stack.sql, stack.box, project.id, [id]))[0];

    it('server create reads the client secret and the headers from standard input or from the environment', async () => {
      const fromStdin = await runAdmin(
        [
          'server',
          'create',
          '--project',
          project.id,
          '--name',
          'a',
          '--transport',
          'http',
          '--url',
          'https://a.example/mcp',
          '--client-id',
          'cid',
          '--client-secret-stdin',
          '--json',
        ],
        { env: env(), input: 'client-secret-STDIN-1\n' },
      );
      expect(fromStdin).toMatchObject({ code: 0, stderr: '' });
      expect(await savedServer(JSON.parse(fromStdin.stdout).id)).toMatchObject({
        oauthClientId: 'cid',
        clientSecret: 'client-secret-STDIN-1',
      });

      const fromEnv = await runAdmin(
        [
          'server',
          'create',
          '--project',
          project.id,
          '--name',
          'b',
          '--transport',
          'http',
          '--url',
          'https://b.example/mcp',
          '--client-secret-env',
          'MY_CLIENT_SECRET',
          '--header-env',
          'x-api-key=MY_API_HEADER',
          '--header',
          'x-team=blue',
          '--json',
        ],
        { env: { ...env(), MY_CLIENT_SECRET: 'client-secret-ENV-2', MY_API_HEADER: 'header-ENV-3' } },
      );
      expect(fromEnv).toMatchObject({ code: 0, stderr: '' });
      expect(await savedServer(JSON.parse(fromEnv.stdout).id)).toMatchObject({
        clientSecret: 'client-secret-ENV-2',
        headers: { 'x-api-key': 'header-ENV-3', 'x-team': 'blue' },
      });

      const headersFromStdin = await runAdmin(
        [
          'server',
          'create',
          '--project',
          project.id,
          '--name',
          'c',
          '--transport',
          'sse',
          '--url',
          'https://c.example/sse',
          '--header-stdin',
          '--json',
        ],
        { env: env(), input: '# saved headers\nx-api-key=header-STDIN-4\n\nauthorization=Bearer a=b\n' },
      );
      expect(headersFromStdin).toMatchObject({ code: 0, stderr: '' });
      expect((await savedServer(JSON.parse(headersFromStdin.stdout).id)).headers).toEqual({
        'x-api-key': 'header-STDIN-4',
        authorization: 'Bearer a=b',
      });
    });

    it('server create reads stdio env values from standard input or from the environment', async () => {
      const fromStdin = await runAdmin(
        [
          'server',
          'create',
          '--project',
          project.id,
          '--name',
          'd',
          '--transport',
          'stdio',
          '--command',
          'node',
          '--env-stdin',
          '--json',
        ],
        { env: env(), input: 'TOKEN=env-STDIN-5\r\nREGION=eu\r\n' },
      );
      expect(fromStdin).toMatchObject({ code: 0, stderr: '' });
      expect((await savedServer(JSON.parse(fromStdin.stdout).id)).env).toEqual({ TOKEN: 'env-STDIN-5', REGION: 'eu' });

      const fromEnv = await runAdmin(
        [
          'server',
          'create',
          '--project',
          project.id,
          '--name',
          'e',
          '--transport',
          'stdio',
          '--command',
          'node',
          '--env-env',
          'TOKEN=HOLDS_THE_TOKEN',
          '--env',
          'REGION=us',
          '--json',
        ],
        { env: { ...env(), HOLDS_THE_TOKEN: 'env-ENV-6' } },
      );
      expect(fromEnv).toMatchObject({ code: 0, stderr: '' });
      expect((await savedServer(JSON.parse(fromEnv.stdout).id)).env).toEqual({ TOKEN: 'env-ENV-6', REGION: 'us' });
    });

    it('provider-key set reads the API key from standard input or from the environment', async () => {
      const fromStdin = await runAdmin(
        ['provider-key', 'set', '--org', org.id, '--provider', 'openai', '--api-key-stdin'],
        { env: env(), input: 'sk-openai-STDIN-7\n' },
      );
      expect(fromStdin).toMatchObject({ code: 0, stderr: '' });
      const fromEnv = await runAdmin(
        ['provider-key', 'set', '--org', org.id, '--provider', 'anthropic', '--api-key-env', 'ANTHROPIC_KEY'],
        { env: { ...env(), ANTHROPIC_KEY: 'sk-ant-ENV-8' } },
      );
      expect(fromEnv).toMatchObject({ code: 0, stderr: '' });
      expect(await getProviderKeys(stack.sql, stack.box, org.id)).toEqual({
        openai: { apiKey: 'sk-openai-STDIN-7' },
        anthropic: { apiKey: 'sk-ant-ENV-8' },
      });
    });

    it('refuses a missing, empty or doubly given secret, and two readers of standard input', async () => {
      const setKey = (args: string[], options: { env?: NodeJS.ProcessEnv; input?: string } = {}) =>
        runAdmin(['provider-key', 'set', '--org', org.id, '--provider', 'google', ...args], {
          ...options,
          env: { ...env(), ...options.env },
        });
      expect((await setKey([])).stderr).toContain(
        'give the API key with --api-key-stdin, --api-key-env <NAME> or --api-key <key>',
      );
      expect((await setKey(['--api-key-env', 'NOT_SET_ANYWHERE'])).stderr).toContain(
        'environment variable NOT_SET_ANYWHERE is not set',
      );
      expect((await setKey(['--api-key-stdin'], { input: '\n' })).stderr).toContain('standard input is empty');
      expect((await setKey(['--api-key', 'x', '--api-key-env', 'HOME'])).stderr).toContain('give only one of');
      const both = await runAdmin(
        [
          'server',
          'create',
          '--project',
          project.id,
          '--name',
          'f',
          '--transport',
          'http',
          '--url',
          'https://f.example/mcp',
          '--client-secret-stdin',
          '--header-stdin',
        ],
        { env: env(), input: 'x' },
      );
      expect(both).toMatchObject({
        code: 1,
        stderr: expect.stringContaining('only one option can read standard input'),
      });
      expect(await getProviderKeys(stack.sql, stack.box, org.id)).not.toHaveProperty('google');
    });

    it('--help offers standard input and the environment, and marks the argument forms as visible', async () => {
      const flat = async (args: string[]) => (await runAdmin([...args, '--help'])).stdout.replace(/\s+/g, ' ');
      const server = await flat(['server', 'create']);
      for (const option of [
        '--client-secret-stdin',
        '--client-secret-env <NAME>',
        '--header-stdin',
        '--header-env <KEY=NAME>',
        '--env-stdin',
        '--env-env <KEY=NAME>',
      ]) {
        expect(server).toContain(option);
      }
      expect(server).toContain(
        '--client-secret <secret> OAuth client secret (stored encrypted; visible in ps and shell history)',
      );
      expect(server).toContain(
        '--header <KEY=VALUE> http/sse: a header sent on every request (repeat; stored encrypted; visible in ps and shell history)',
      );
      expect(server).toContain(
        '--env <KEY=VALUE> stdio: an environment variable (repeat; stored encrypted; visible in ps and shell history)',
      );
      const providerKey = await flat(['provider-key', 'set']);
      expect(providerKey).toContain('--api-key-stdin the API key, read from standard input');
      expect(providerKey).toContain('--api-key-env <NAME> the API key, from the environment variable NAME');
      expect(providerKey).toContain('--api-key <key> the API key (stored encrypted; visible in ps and shell history)');
    });
  });

  describe('the encryption key', () => {
    const keyA = SecretBox.generateKey();
    const keyB = SecretBox.generateKey();
    let db: TestDatabase;
    beforeAll(async () => {
      db = await createTestDatabase();
    });
    afterAll(async () => db?.drop());

    it('refuses to start with a key the database was not sealed with, naming the setting to fix', async () => {
      const first = await admin('org', 'create', '--name', 'Recorded', '--json');
      expect(first.id).toMatch(/^org_/);
      const wrong = await runAdmin(['org', 'create', '--name', 'Wrong'], {
        env: { DATABASE_URL: stack.db.url, RUNWAY_ENCRYPTION_KEY: keyA },
      });
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toMatch(/RUNWAY_ENCRYPTION_KEY does not hold the key[\s\S]*sealed with/);
      expect(await stack.sql`SELECT 1 FROM organizations WHERE name = 'Wrong'`).toHaveLength(0);
    });

    it('in a second checkout (no key file), refuses instead of creating a key; a wrong key file is named', async () => {
      const secondCheckout = mkdtempSync(join(tmpdir(), 'runway-second-'));
      chmodSync(secondCheckout, 0o755);
      try {
        const refused = await runAdmin(
          ['provider-key', 'set', '--org', 'org_x', '--provider', 'openai', '--api-key-env', 'HOME'],
          { env: { DATABASE_URL: stack.db.url, RUNWAY_DATA_DIR: secondCheckout } },
        );
        expect(refused.code).toBe(1);
        expect(refused.stderr).toContain('already sealed with key');
        expect(refused.stderr).toContain(join(secondCheckout, 'encryption.key'));
        expect(refused.stderr).toContain('RUNWAY_ENCRYPTION_KEY');
        expect(readdirSync(secondCheckout)).toEqual([]);

        writeFileSync(join(secondCheckout, 'encryption.key'), `${keyB}\n`);
        const wrongFile = await runAdmin(['org', 'create', '--name', 'Wrong file'], {
          env: { DATABASE_URL: stack.db.url, RUNWAY_DATA_DIR: secondCheckout },
        });
        expect(wrongFile.code).toBe(1);
        expect(wrongFile.stderr).toContain(
          `the key file ${join(secondCheckout, 'encryption.key')} does not hold the key`,
        );
      } finally {
        rmSync(secondCheckout, { recursive: true, force: true });
      }
      expect(existsSync(join(dataDir, 'encryption.key'))).toBe(false);
    });

    it('rotation: secrets sealed with A stay readable under "B,A"; secrets rekey re-seals them in resumable batches; then "B" alone is enough', async () => {
      const as = (key: string) => ({ DATABASE_URL: db.url, RUNWAY_ENCRYPTION_KEY: key });
      const json = async (args: string[], env: NodeJS.ProcessEnv, input?: string) => {
        const outcome = await runAdmin([...args, '--json'], { env, input });
        expect(outcome).toMatchObject({ code: 0, stderr: expect.not.stringContaining('error') });
        return JSON.parse(outcome.stdout);
      };
      const org = await json(['org', 'create', '--name', 'Rotating'], as(keyA));
      const project = await json(['project', 'create', '--org', org.id, '--name', 'p'], as(keyA));
      const servers = [];
      for (const n of [1, 2, 3]) {
        servers.push(
          (
            await json(
              [
                'server',
                'create',
                '--project',
                project.id,
                '--name',
                `s${n}`,
                '--transport',
                'http',
                '--url',
                `https://s${n}.example/mcp`,
                '--header-stdin',
                '--client-secret-env',
                'SECRET',
              ],
              { ...as(keyA), SECRET: `client-${n}` },
              `x-api-key=header-${n}\n`,
            )
          ).id,
        );
      }
      await json(['provider-key', 'set', '--org', org.id, '--provider', 'openai', '--api-key-env', 'KEY'], {
        ...as(keyA),
        KEY: 'sk-provider',
      });

      // "B,A": everything still opens, new secrets are sealed with B.
      const rotating = await runAdmin(
        [
          'server',
          'create',
          '--project',
          project.id,
          '--name',
          's4',
          '--transport',
          'http',
          '--url',
          'https://s4.example/mcp',
          '--header-env',
          'x-api-key=H',
          '--json',
        ],
        { env: { ...as(`${keyB},${keyA}`), H: 'header-4' } },
      );
      expect(rotating.code).toBe(0);
      expect(rotating.stderr).toContain('secrets rekey');
      servers.push(JSON.parse(rotating.stdout).id);

      // "B" alone is refused while secrets sealed with A remain; so is "A" alone, now that B seals secrets too.
      for (const key of [keyB, keyA]) {
        const refused = await runAdmin(['org', 'create', '--name', 'too early'], { env: as(key) });
        expect(refused).toMatchObject({
          code: 1,
          stderr: expect.stringContaining('RUNWAY_ENCRYPTION_KEY does not hold'),
        });
      }

      // An interrupted rekey (two batches of one row), then a re-run that finishes, then one with nothing to do.
      // Sealed with A: 3 servers x (headers, client secret) + 1 provider key.
      const partial = await json(
        ['secrets', 'rekey', '--batch-size', '1', '--max-batches', '2'],
        as(`${keyB},${keyA}`),
      );
      expect(partial).toMatchObject({ complete: false, remaining: 7 - partial.resealed, retired: [] });
      expect(partial.resealed).toBeGreaterThan(0);
      const rest = await json(['secrets', 'rekey', '--batch-size', '2'], as(`${keyB},${keyA}`));
      expect(rest).toMatchObject({
        complete: true,
        resealed: partial.remaining,
        remaining: 0,
        retired: [SecretBox.fromSetting(keyA).newest.id],
      });
      const again = await json(['secrets', 'rekey'], as(`${keyB},${keyA}`));
      expect(again).toMatchObject({ complete: true, resealed: 0 });

      const onlyB = await runAdmin(['org', 'create', '--name', 'after', '--json'], { env: as(keyB) });
      expect(onlyB).toMatchObject({ code: 0, stderr: '' });
      expect((await runAdmin(['org', 'create', '--name', 'old key'], { env: as(keyA) })).code).toBe(1);

      const boxB = SecretBox.fromSetting(keyB);
      const saved = await getSavedServersByIds(db.sql, boxB, project.id, servers);
      expect(saved.map((s) => [s.name, s.headers['x-api-key'], s.clientSecret]).sort()).toEqual([
        ['s1', 'header-1', 'client-1'],
        ['s2', 'header-2', 'client-2'],
        ['s3', 'header-3', 'client-3'],
        ['s4', 'header-4', null],
      ]);
      expect(await getProviderKeys(db.sql, boxB, org.id)).toEqual({ openai: { apiKey: 'sk-provider' } });
      // about fifteen CLI processes, each compiling its TypeScript on start: minutes on a loaded 2-core machine
    }, 300_000);
  });
});
