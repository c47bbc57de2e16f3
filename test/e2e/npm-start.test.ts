import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { environmentSchema } from '../../runtime/config.js';
import type { StackRecord } from '../../cli/stackRecord.js';
import { apiClient } from '../helpers/http.js';
import { startNpmStart, type NpmStartStack } from '../helpers/npmStart.js';
import { freePort } from '../helpers/ports.js';

const root = new URL('../..', import.meta.url).pathname;

/** Processes whose command line mentions the data folder or the ports of this stack. */
function leftovers(marker: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  return out.split('\n').filter((line) => line.includes(marker) && !line.includes('ps -eo'));
}

/** A shell of the user's: PATH and HOME, none of Runway's variables unless given. */
function shellEnv(more: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !(name in environmentSchema.shape)),
  );
  return { ...inherited, ...more };
}

/** Runs an npm command to its end: its exit code and everything it printed. */
function npm(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  const child = spawn('npm', args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 90_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    }),
  );
}

describe('npm start, as a user types it and a supervisor runs it', () => {
  let stack: NpmStartStack;
  let port: number;
  beforeAll(async () => {
    // Through npm itself: npm -> sh -> tsx -> node scripts/start.ts, the chain a supervisor's signal has to cross.
    stack = await startNpmStart({}, { npm: true });
    port = stack.ports.api;
  }, 200_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('prints its address only when a curl pasted at once works: API, database, Temporal and a polling worker (issue 29 §4)', async () => {
    const { curl, readyz } = await stack.atPrint;
    expect(readyz).toEqual({
      status: 200,
      body: { status: 'ready', checks: { postgres: 'ok', temporal: 'ok', worker: 'ok' } },
    });
    expect(curl).toBe(200);
  });

  it('runs the whole stack on embedded defaults and prints a working demo key, the console and the real Web UI address', async () => {
    const output = stack.output;
    const key = stack.demoKey;
    // The key's id too, so the demo key can be revoked: npm run -s admin -- key revoke key_...
    expect(output()).toMatch(
      /Its key id: key_\w+ \(list keys: npm run -s admin -- key list; revoke this one: npm run -s admin -- key revoke key_\w+\)/,
    );
    expect(output()).toMatch(
      /curl -sS --fail-with-body -H "Authorization: Bearer sk_\w+" http:\/\/localhost:\d+\/api\/v1\/projects\/prj_\w+\/servers/,
    );
    expect((await apiClient(`http://127.0.0.1:${port}/api/v1`)('GET', '/me')).status).toBe(401);
    const me = await apiClient(`http://127.0.0.1:${port}/api/v1`, key)('GET', '/me');
    expect(me.status).toBe(200);
    const servers = await apiClient(`http://127.0.0.1:${port}/api/v1`, key)('GET', '/projects');
    expect(servers.body.items).toHaveLength(1);
    // The Web UI where it really is (TEMPORAL_UI_PORT), not the default :8233.
    expect(output()).toContain(`Temporal Web UI: http://127.0.0.1:${stack.ports.ui}`);
    const ui = await fetch(`http://127.0.0.1:${stack.ports.ui}/`);
    expect(ui.status).toBe(200);
    // The eval console, built at start, printed next to the API's address and served by the API.
    expect(output()).toMatch(new RegExp(`Console: http://localhost:${port}/console/`));
    const consolePage = await fetch(`http://127.0.0.1:${port}/console/`);
    expect(consolePage.status).toBe(200);
    expect(await consolePage.text()).toMatch(/<script type="module" src="\/console\/main-\w+\.js"><\/script>/);
  });

  it('records where its stack runs in its data folder, and the CLIs of another shell find it there (issue 29 §7)', async () => {
    const record = JSON.parse(readFileSync(join(stack.dataDir, 'stack.json'), 'utf8')) as StackRecord;
    expect(record).toEqual({
      pid: expect.any(Number),
      startedAt: expect.any(String),
      status: 'ready',
      dataDir: stack.dataDir,
      url: `http://localhost:${port}`,
      apiUrl: `http://localhost:${port}/api/v1`,
      consoleUrl: `http://localhost:${port}/console/`,
      databaseUrl: `postgres://runway@127.0.0.1:${stack.ports.postgres}/runway`,
      embeddedDatabase: true,
      temporalAddress: `127.0.0.1:${stack.ports.temporal}`,
      temporalUiUrl: `http://127.0.0.1:${stack.ports.ui}`,
    });
    expect(leftovers(`${record.pid} `).join('\n')).toMatch(/scripts\/start\.ts/);
    // Another shell: the same data folder, none of the ports npm start was given.
    const elsewhere = shellEnv({ RUNWAY_DATA_DIR: stack.dataDir });
    const keys = await npm(['run', '-s', 'admin', '--', 'key', 'list', '--json'], elsewhere);
    expect(keys.code, keys.output).toBe(0);
    expect(keys.output).toMatch(/"id": "key_\w+"/);
    const servers = await npm(['run', '-s', 'runway', '--', '--json', 'servers', 'list'], {
      ...elsewhere,
      RUNWAY_API_KEY: stack.demoKey,
    });
    expect(servers.code, servers.output).toBe(0);
    expect(servers.output).toContain('everything (http)');
  });

  it('a second npm start in the same folder says where the running one is, and leaves it alone (issue 29 §3)', async () => {
    const record = JSON.parse(readFileSync(join(stack.dataDir, 'stack.json'), 'utf8')) as StackRecord;
    const second = await npm(['start'], stack.env);
    expect(second.code, second.output).toBe(1);
    expect(second.output).toContain(
      `a Runway stack already runs in this folder (pid ${record.pid}), its API is at http://localhost:${port}/api/v1; stop it first (Ctrl-C in its terminal or kill ${record.pid})`,
    );
    expect(second.output).not.toMatch(/undefined/);
    expect(JSON.parse(readFileSync(join(stack.dataDir, 'stack.json'), 'utf8'))).toEqual(record);
    expect((await fetch(`http://127.0.0.1:${port}/readyz?require=worker`)).status).toBe(200);
  });

  it("keeps idle connections open 65 s, above load balancers' and clients' idle timeouts (issue 29 §13)", async () => {
    const header = await new Promise<string | string[] | undefined>((resolve, reject) => {
      get({ host: '127.0.0.1', port, path: '/healthz', headers: { connection: 'keep-alive' } }, (res) => {
        res.resume();
        res.once('end', () => resolve(res.headers['keep-alive']));
      }).once('error', reject);
    });
    expect(header).toBe('timeout=65');
  });

  it('SIGINT to the npm process alone, as a supervisor sends it, stops everything and removes the record (issue 29 §3)', async () => {
    process.kill(stack.child.pid!, 'SIGINT');
    expect(await stack.gone(), stack.output()).toBe(true);
    expect(stack.output()).toMatch(/stopping/);
    expect(stack.output()).toMatch(/stopped/);
    expect(existsSync(join(stack.dataDir, 'stack.json'))).toBe(false);
    expect(leftovers(stack.dataDir)).toEqual([]);
    expect(leftovers(`--port ${stack.ports.temporal}`)).toEqual([]);
  }, 90_000);

  it('with its ports taken, stops at once naming each port and its setting, before starting anything (issue 29 §2)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'runway-start-taken-'));
    chmodSync(dataDir, 0o755);
    const holders: Server[] = [];
    const hold = async (host: string) => {
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(0, host, resolve));
      holders.push(server);
      return (server.address() as { port: number }).port;
    };
    try {
      const ports = {
        PORT: await hold('0.0.0.0'),
        EMBEDDED_POSTGRES_PORT: await hold('127.0.0.1'),
        TEMPORAL_PORT: await hold('127.0.0.1'),
        TEMPORAL_UI_PORT: await hold('127.0.0.1'),
        DEMO_MCP_PORT: await hold('0.0.0.0'),
        METRICS_PORT: await hold('127.0.0.1'),
      };
      const env = shellEnv({
        RUNWAY_DATA_DIR: dataDir,
        ...Object.fromEntries(Object.entries(ports).map(([name, p]) => [name, String(p)])),
      });
      const taken = await npm(['start'], env);
      expect(taken.code, taken.output).toBe(1);
      for (const [setting, p] of Object.entries(ports))
        expect(taken.output).toMatch(
          new RegExp(
            `port ${p} \\(${setting}, [^)]+\\) is already in use: stop what listens there, or set ${setting} to a free port`,
          ),
        );
      expect(taken.output).not.toMatch(/starting embedded PostgreSQL|undefined/);
      expect(existsSync(join(dataDir, 'stack.json'))).toBe(false);
      // Ports free again, one taken by two settings.
      const clash = await freePort();
      const shared = await npm(['start'], {
        ...env,
        PORT: String(clash),
        DEMO_MCP_PORT: String(clash),
        METRICS_PORT: undefined,
      });
      expect(shared.code, shared.output).toBe(1);
      expect(shared.output).toContain(`port ${clash} (PORT, the API) is DEMO_MCP_PORT's too`);
    } finally {
      for (const server of holders) server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('npm start', () => {
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
