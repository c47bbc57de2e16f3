import { mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateServerSettings } from '../../db/servers.js';
import { FAILURE, NOISE_LINES } from '../fixtures/mcp/broken-start.js';
import { apiClient } from '../helpers/http.js';
import { fixtureArgs, fixtureOverStdio, saveServer } from '../helpers/mcpServers.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

/** What a caller may see of a server's stderr: no escape sequences, no control characters but newlines and tabs. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const SECRET = 'tok-3f9a7c21-secret';

/** Stdio servers: why one failed to start, slow first starts, and where they run. */
describe('stdio servers', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  const scratch = mkdtempSync(join(tmpdir(), 'runway-stdio-'));
  const servers: Record<string, string> = {};
  const op = (server: string, suffix: string, body: unknown = {}) =>
    call('POST', `/projects/${org.projectId}/servers/${servers[server]}/${suffix}`, body);
  const tool = async (server: string, toolName: string, parameters: Record<string, unknown> = {}) => {
    const reply = await op(server, 'tools/call', { toolName, parameters });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body.content[0].text as string;
  };

  beforeAll(async () => {
    stack = await startTestStack({
      worker: false,
      config: { RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_MINUTE: '600000' },
    });
    org = await seedOrganization(stack.sql);
    call = apiClient(stack.baseUrl, org.apiKey);
    // A launcher named like npx (node itself, under that name), to stand for `npx -y some-server` on a cold cache.
    symlinkSync(process.execPath, join(scratch, 'npx'));
    const save = async (name: string, input: Record<string, unknown>) =>
      (servers[name] = await saveServer(stack.sql, stack.box, { projectId: org.projectId, name, ...input } as never));
    await Promise.all([
      save('broken', fixtureOverStdio('broken-start')),
      save('broken-echoing', {
        ...fixtureOverStdio('broken-start'),
        env: { ECHO_SECRET_ENV: 'API_TOKEN', API_TOKEN: SECRET },
      }),
      save('cold-npx', {
        transportType: 'stdio',
        command: join(scratch, 'npx'),
        args: fixtureArgs('slow'),
        env: { SLOW_INIT_MS: '4000' },
        timeouts: { initializeMs: 500 },
      }),
      save('slow-node', {
        ...fixtureOverStdio('slow'),
        env: { SLOW_INIT_MS: '4000' },
        timeouts: { initializeMs: 500 },
      }),
      save('workdir', fixtureOverStdio('workdir')),
      save('workdir-2', fixtureOverStdio('workdir')),
      save('workdir-set', { ...fixtureOverStdio('workdir'), cwd: scratch }),
      save('workdir-missing', { ...fixtureOverStdio('workdir'), cwd: join(scratch, 'does-not-exist') }),
    ]);
  });
  afterAll(async () => {
    await stack?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  describe('a server that fails to start says why', () => {
    it('502 with the tail of its stderr (trimmed, without control characters) and its exit code', async () => {
      const reply = await op('broken', 'validate');
      expect(reply.status).toBe(502);
      expect(reply.body).toMatchObject({
        code: 'SERVER_UNREACHABLE',
        details: { phase: 'initialize', exitCode: 1, signal: null, stderr: expect.stringContaining(FAILURE) },
      });
      const { stderr } = reply.body.details as { stderr: string };
      expect(stderr).not.toMatch(CONTROL);
      expect(stderr).not.toContain('[2m');
      // Bounded: the last lines only, the newest kept.
      const lines = stderr.split('\n');
      expect(lines.length).toBeLessThanOrEqual(20);
      expect(lines.at(-1)).toBe(FAILURE);
      expect(stderr).toContain(`starting step ${NOISE_LINES}`);
      expect(stderr).not.toContain('starting step 1\n');
      // The same for any operation that starts the server.
      expect((await op('broken', 'tools')).body).toMatchObject({
        code: 'SERVER_UNREACHABLE',
        details: { exitCode: 1, stderr: expect.stringContaining(FAILURE) },
      });
    });

    it('doctor names it in the initialization check and in the error', async () => {
      const report = (await op('broken', 'doctor')).body;
      expect(report).toMatchObject({
        status: 'error',
        checks: {
          connection: { status: 'ok' },
          initialization: {
            status: 'error',
            detail: expect.stringMatching(/exited with code 1[\s\S]*None of the specified directories are accessible/),
          },
        },
        error: { code: 'SERVER_UNREACHABLE', details: { exitCode: 1, stderr: expect.stringContaining(FAILURE) } },
      });
    });

    it('a saved env value the server echoes is redacted, and its stderr never reaches the service log', async () => {
      const reply = await op('broken-echoing', 'validate');
      expect(reply.status).toBe(502);
      expect(reply.body.details.stderr).toContain('config: token=[redacted]\n');
      expect(JSON.stringify(reply.body)).not.toContain(SECRET);
      const report = (await op('broken-echoing', 'doctor')).body;
      expect(report.checks.initialization.detail).toContain('token=[redacted]');
      expect(JSON.stringify(report)).not.toContain(SECRET);
      const logs = stack.logs.join('');
      expect(logs).not.toContain(SECRET);
      expect(logs).not.toContain(FAILURE);
    });
  });

  describe('a slow first start', () => {
    it('doctor shows the timeout that applied, and for a package launcher explains the download and the option to raise', async () => {
      const report = (await op('cold-npx', 'doctor')).body;
      expect(report).toMatchObject({
        status: 'error',
        timeouts: { initializeMs: 500 },
        error: { code: 'TIMEOUT', details: { phase: 'initialize' } },
      });
      expect(report.checks.initialization.status).toBe('error');
      expect(report.checks.initialization.detail).toContain('500 ms');
      expect(report.checks.initialization.detail).toMatch(/first start of npx may download/);
      expect(report.checks.initialization.detail).toContain(`--initialize-timeout-ms`);

      // A server started by its own binary gets the timeout, without the download story.
      const plain = (await op('slow-node', 'doctor')).body;
      expect(plain).toMatchObject({
        status: 'error',
        timeouts: { initializeMs: 500 },
        checks: { initialization: { status: 'error', detail: expect.stringContaining('500 ms') } },
      });
      expect(plain.checks.initialization.detail).not.toContain('download');
    });

    it('raising the initialize timeout fixes it', async () => {
      await updateServerSettings(stack.sql, servers['cold-npx'], { timeouts: { initializeMs: 30_000 } });
      const report = (await op('cold-npx', 'doctor')).body;
      expect(report).toMatchObject({
        status: 'ready',
        timeouts: { initializeMs: 30_000 },
        checks: { initialization: { status: 'ok' } },
      });
      expect(await tool('cold-npx', 'add', { a: 1, b: 2 })).toBe('3');
    });
  });

  describe('working directory', () => {
    it('is a private directory per server under DATA_DIR, never the service’s own', async () => {
      const [cwd, other] = [await tool('workdir', 'cwd'), await tool('workdir-2', 'cwd')];
      expect(cwd).toBe(join(stack.config.DATA_DIR, 'servers', servers.workdir));
      expect(other).toBe(join(stack.config.DATA_DIR, 'servers', servers['workdir-2']));
      expect(cwd).not.toBe(process.cwd());
      expect(statSync(cwd).mode & 0o777).toBe(0o700);
      // Relative paths a server writes land there.
      expect(await tool('workdir', 'write', { name: 'notes.txt', text: 'hi' })).toBe(join(cwd, 'notes.txt'));
    });

    it('a saved cwd overrides it; a saved cwd that does not exist is a clear 502', async () => {
      expect(await tool('workdir-set', 'cwd')).toBe(scratch);
      const missing = await op('workdir-missing', 'validate');
      expect(missing.status).toBe(502);
      expect(missing.body).toMatchObject({
        code: 'SERVER_UNREACHABLE',
        details: { phase: 'connect', reason: 'SPAWN_FAILED' },
      });
      expect(missing.body.message).toContain(`working directory ${join(scratch, 'does-not-exist')} does not exist`);
      const report = (await op('workdir-missing', 'doctor')).body;
      expect(report.checks.probe).toMatchObject({
        status: 'error',
        detail: expect.stringContaining('working directory'),
      });
    });

    it('a relative cwd is refused when saved', async () => {
      await expect(
        saveServer(stack.sql, stack.box, {
          projectId: org.projectId,
          name: 'relative',
          ...fixtureOverStdio('workdir'),
          cwd: 'relative/dir',
        }),
      ).rejects.toThrow();
    });
  });
});
