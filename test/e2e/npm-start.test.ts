import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/http.js';
import { startNpmStart } from '../helpers/npmStart.js';

/** Processes whose command line mentions the data folder or the ports of this stack. */
function leftovers(marker: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  return out.split('\n').filter((line) => line.includes(marker) && !line.includes('ps -eo'));
}

describe('npm start', () => {
  it('runs the whole stack on embedded defaults, prints a working demo key, and Ctrl-C leaves nothing behind', async () => {
    const stack = await startNpmStart();
    const { api: port, ui: uiPort, temporal: temporalPort } = stack.ports;
    const output = stack.output;
    try {
      const key = stack.demoKey;
      // The key's id too, so the demo key can be revoked: npm run -s admin -- key revoke key_...
      expect(output()).toMatch(
        /Its key id: key_\w+ \(list keys: npm run -s admin -- key list; revoke this one: npm run -s admin -- key revoke key_\w+\)/,
      );
      expect(output()).toMatch(
        /curl -sS --fail-with-body -H "Authorization: Bearer sk_\w+" http:\/\/localhost:\d+\/api\/v1\/projects\/prj_\w+\/servers/,
      );

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
      // The eval console, built at start, printed next to the API's address and served by the API.
      expect(output()).toMatch(new RegExp(`Console: http://localhost:${port}/console/`));
      const consolePage = await fetch(`http://127.0.0.1:${port}/console/`);
      expect(consolePage.status).toBe(200);
      expect(await consolePage.text()).toMatch(/<script type="module" src="\/console\/main-\w+\.js"><\/script>/);
    } finally {
      await stack.stop();
    }
    expect(leftovers(stack.dataDir)).toEqual([]);
    expect(leftovers(`--port ${temporalPort}`)).toEqual([]);
    expect(output()).toMatch(/stopping/);
  }, 240_000);

  it('stops, saying why, when its embedded PostgreSQL exits under it', async () => {
    const stack = await startNpmStart();
    try {
      const exited = new Promise<number | null>((resolve) => stack.child.once('exit', (code) => resolve(code)));
      const postmaster = Number(readFileSync(join(stack.dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(postmaster, 'SIGKILL');
      const code = await exited;
      expect(code, stack.output()).toBe(1);
      expect(stack.output()).toMatch(
        new RegExp(`embedded PostgreSQL exited \\(pid ${postmaster}\\); stopping the stack`),
      );
      expect(stack.output()).toMatch(/stopped/);
    } finally {
      await stack.stop();
    }
  }, 240_000);
});
