import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/http.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

const run = promisify(execFile);
const root = new URL('../..', import.meta.url).pathname;

describe('operator CLI (npm run admin)', () => {
  let stack: TestStack;
  const admin = async (...args: string[]) => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'cli/admin.ts', ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: stack.db.url, RUNWAY_ENCRYPTION_KEY: stack.config.RUNWAY_ENCRYPTION_KEY },
    });
    return args.includes('--json') ? JSON.parse(stdout) : stdout;
  };

  beforeAll(async () => {
    stack = await startTestStack({ worker: false });
  });
  afterAll(async () => stack?.stop());

  it('seed --demo --json prints the demo key, organization, project and servers', async () => {
    const seeded = await admin('seed', '--demo', '--json');
    expect(seeded).toEqual({
      apiKey: expect.stringMatching(/^sk_\w{40}$/),
      organizationId: expect.stringMatching(/^org_/),
      projectId: expect.stringMatching(/^prj_/),
      servers: [
        { id: expect.stringMatching(/^srv_/), name: 'everything (stdio)', transportType: 'stdio' },
        { id: expect.stringMatching(/^srv_/), name: 'everything (http)', transportType: 'http' },
      ],
    });
    const servers = await apiClient(stack.baseUrl, seeded.apiKey)('GET', `/projects/${seeded.projectId}/servers`);
    expect(servers.body.items.map((s: { name: string }) => s.name)).toEqual(['everything (stdio)', 'everything (http)']);
  });

  it('follows the README: organization, user, project, server, key, then curl; revoke stops the key', async () => {
    const org = await admin('org', 'create', '--name', 'Acme', '--json');
    const user = await admin('user', 'create', '--email', 'ops@acme.test', '--name', 'Ops', '--org', org.id, '--role', 'owner', '--json');
    const project = await admin('project', 'create', '--org', org.id, '--name', 'Tools', '--default', '--json');
    const server = await admin('server', 'create', '--project', project.id, '--name', 'weather', '--transport', 'http',
      '--url', 'https://weather.example/mcp', '--header', 'x-api-key=topsecret', '--oauth', '--scope', 'read', '--json');
    const key = await admin('key', 'create', '--org', org.id, '--user', user.id, '--json');
    expect(key.apiKey).toMatch(/^sk_/);

    const call = apiClient(stack.baseUrl, key.apiKey);
    expect((await call('GET', '/projects')).body.items).toEqual([expect.objectContaining({ id: project.id, name: 'Tools', role: 'owner' })]);
    const servers = await call('GET', `/projects/${project.id}/servers`);
    expect(servers.body.items).toEqual([expect.objectContaining({ id: server.id, name: 'weather', useOAuth: true, oauthScopes: ['read'] })]);
    expect(JSON.stringify(servers.body)).not.toContain('topsecret');

    const revoked = await admin('key', 'revoke', key.id, '--json');
    expect(revoked).toEqual({ id: key.id, revoked: true });
    expect((await call('GET', '/me')).status).toBe(401);
  });

  it('fails clearly on bad input', async () => {
    await expect(admin('server', 'create', '--project', 'prj_x', '--name', 'x', '--transport', 'stdio')).rejects.toMatchObject({
      stderr: expect.stringContaining('--command is required for stdio servers'),
    });
    await expect(admin('key', 'revoke', 'key_missing')).rejects.toMatchObject({ stderr: expect.stringContaining('no active key') });
  });
});
