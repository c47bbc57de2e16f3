import { spawn, execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/http.js';
import { freePort } from '../helpers/ports.js';

const root = new URL('../..', import.meta.url).pathname;

/** Processes whose command line mentions the data folder or the ports of this stack. */
function leftovers(marker: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  return out.split('\n').filter((line) => line.includes(marker) && !line.includes('ps -eo'));
}

describe('npm start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'runway-start-'));
  // As root, embedded Postgres runs as the postgres user, which must be able to enter the folder.
  chmodSync(dataDir, 0o755);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('runs the whole stack on embedded defaults, prints a working demo key, and Ctrl-C leaves nothing behind', async () => {
    const [port, temporalPort, uiPort, demoPort, pgPort] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
    const env: NodeJS.ProcessEnv = { ...process.env, RUNWAY_DATA_DIR: dataDir, PORT: String(port), TEMPORAL_PORT: String(temporalPort), TEMPORAL_UI_PORT: String(uiPort), DEMO_MCP_PORT: String(demoPort), EMBEDDED_POSTGRES_PORT: String(pgPort) };
    for (const name of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'RUNWAY_ENCRYPTION_KEY']) delete env[name];
    // Its own process group, so the test can press "Ctrl-C" the way a terminal does: SIGINT to the whole group.
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));

    try {
      const deadline = Date.now() + 150_000;
      while (!/API: http/.test(output) || !/worker started/.test(output)) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not come up:\n${output}`);
        await new Promise((r) => setTimeout(r, 250));
      }
      const key = /Demo API key \(shown once, keep it\): (sk_\w+)/.exec(output)?.[1];
      expect(key).toBeDefined();
      // The key's id too, so the demo key can be revoked: npm run -s admin -- key revoke key_...
      expect(output).toMatch(/Its key id: key_\w+ \(list keys: npm run -s admin -- key list; revoke this one: npm run -s admin -- key revoke key_\w+\)/);
      expect(output).toMatch(/curl -sS --fail-with-body -H "Authorization: Bearer sk_\w+" http:\/\/localhost:\d+\/api\/v1\/projects\/prj_\w+\/servers/);

      let anonymous = await apiClient(`http://127.0.0.1:${port}/api/v1`)('GET', '/me').catch(() => undefined);
      for (let i = 0; !anonymous && i < 40; i++) {
        await new Promise((r) => setTimeout(r, 250));
        anonymous = await apiClient(`http://127.0.0.1:${port}/api/v1`)('GET', '/me').catch(() => undefined);
      }
      expect(anonymous?.status).toBe(401);
      const me = await apiClient(`http://127.0.0.1:${port}/api/v1`, key)('GET', '/me');
      expect(me.status).toBe(200);
      const servers = await apiClient(`http://127.0.0.1:${port}/api/v1`, key)('GET', '/projects');
      expect(servers.body.items).toHaveLength(1);
      const ui = await fetch(`http://127.0.0.1:${uiPort}/`);
      expect(ui.status).toBe(200);
    } finally {
      process.kill(-child.pid!, 'SIGINT');
      await exited;
    }
    expect(leftovers(dataDir)).toEqual([]);
    expect(leftovers(`--port ${temporalPort}`)).toEqual([]);
    expect(output).toMatch(/stopping/);
  }, 240_000);
});
