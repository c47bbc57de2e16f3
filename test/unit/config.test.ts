import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  environmentSchema,
  EnvironmentError,
  loadConfig,
  loadLocalStackConfig,
  loadMigrationConfig,
  loadRunwayCliConfig,
  loadStartConfig,
  loadToolsConfig,
} from '../../runtime/config.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const KEY = Buffer.alloc(32, 7).toString('base64');
const service = { DATABASE_URL: 'postgres://runway@db/runway', RUNWAY_ENCRYPTION_KEY: KEY };

/** The rows of the tables of docs/CONFIGURATION.md: the variables of the first cell, the defaults of the second. */
function documentedRows(): { names: string[]; defaults: string }[] {
  return readFileSync(join(root, 'docs/CONFIGURATION.md'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [names, defaults] = line.split(' | ');
      return { names: [...names.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]), defaults };
    });
}

/** A default as docs/CONFIGURATION.md writes it: paths under the checkout or the home folder relative to them. */
function asDocumented(value: unknown): string {
  const text = String(value);
  if (text.startsWith(`${root}`)) return relative(root, text);
  if (text.startsWith(`${homedir()}/`)) return `~/${relative(homedir(), text)}`;
  return text;
}

describe('the environment schema', () => {
  it('is documented in docs/CONFIGURATION.md, every variable and only those', () => {
    const documented = documentedRows().flatMap((row) => row.names);
    expect(new Set(documented).size).toBe(documented.length);
    expect([...documented].sort()).toEqual(Object.keys(environmentSchema.shape).sort());
  });

  it('has the defaults docs/CONFIGURATION.md states', () => {
    let compared = 0;
    for (const { names, defaults } of documentedRows()) {
      // The default cell before any note in parentheses: one `value` per variable of the row (`3000` / `0.0.0.0`).
      const stated = [...defaults.split('(')[0].matchAll(/`([^`]+)`/g)].map((m) => m[1]);
      if (stated.length !== names.length) continue;
      names.forEach((name, i) => {
        const parsed = environmentSchema.shape[name as keyof typeof environmentSchema.shape].safeParse(undefined);
        expect(parsed.success && asDocumented(parsed.data), name).toBe(stated[i]);
        compared += 1;
      });
    }
    expect(compared).toBeGreaterThan(30);
  });

  it('gives npm start, the operator CLI and the tools the defaults they always had', () => {
    expect(loadStartConfig({})).toEqual({
      RUNWAY_DATA_DIR: join(root, '.data'),
      EMBEDDED_POSTGRES_PORT: 54329,
      TEMPORAL_PORT: 7233,
      TEMPORAL_UI_PORT: 8233,
      DEMO_MCP_PORT: 3001,
      PORT: 3000,
      HOST: '0.0.0.0',
    });
    expect(loadLocalStackConfig({ RUNWAY_DATA_DIR: 'elsewhere', EMBEDDED_POSTGRES_PORT: '5999' })).toEqual({
      RUNWAY_DATA_DIR: 'elsewhere',
      EMBEDDED_POSTGRES_PORT: 5999,
      DEMO_MCP_PORT: 3001,
    });
    expect(loadToolsConfig({})).toEqual({ XDG_CACHE_HOME: join(homedir(), '.cache') });
  });

  it("leaves the CLIs' database port and API URL unset when not given, for the running npm start to fill in", () => {
    // cli/localStack.ts and cli/runway/program.ts go to the stack.json of the npm start running in the data folder,
    // then to the defaults (54329, http://localhost:3000).
    expect(loadLocalStackConfig({})).toEqual({ RUNWAY_DATA_DIR: join(root, '.data'), DEMO_MCP_PORT: 3001 });
    expect(loadLocalStackConfig({ EMBEDDED_POSTGRES_PORT: '' }).EMBEDDED_POSTGRES_PORT).toBeUndefined();
    expect(loadRunwayCliConfig({})).toEqual({ RUNWAY_DATA_DIR: join(root, '.data'), RUNWAY_PROJECT_ID: 'default' });
    expect(loadRunwayCliConfig({ RUNWAY_URL: '' }).RUNWAY_URL).toBeUndefined();
    expect(loadRunwayCliConfig({ RUNWAY_URL: 'https://runway.example.com' }).RUNWAY_URL).toBe(
      'https://runway.example.com',
    );
  });

  it('lets npm start and the operator CLI stand in for an unset or empty database, key and Temporal, and the services not', () => {
    const empty = { DATABASE_URL: '', RUNWAY_ENCRYPTION_KEY: '', TEMPORAL_ADDRESS: '' };
    const started = loadStartConfig(empty);
    expect([started.DATABASE_URL, started.RUNWAY_ENCRYPTION_KEY, started.TEMPORAL_ADDRESS]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(loadStartConfig({ ...service, TEMPORAL_ADDRESS: 'temporal:7233', DATA_DIR: 'data' })).toMatchObject({
      ...service,
      TEMPORAL_ADDRESS: 'temporal:7233',
      DATA_DIR: 'data',
    });
    expect(() => loadConfig(empty)).toThrow('DATABASE_URL: must be a PostgreSQL connection URL, not empty');
    expect(() => loadMigrationConfig({})).toThrow(
      'invalid environment: DATABASE_URL: must be set to a PostgreSQL connection URL',
    );
  });

  it.each([
    [() => loadConfig({ ...service, PORT: '70000' }), 'invalid environment: PORT: must be a port number (0 to 65535)'],
    [
      () => loadConfig({ ...service, RATE_LIMIT_BURST: '0' }),
      'invalid environment: RATE_LIMIT_BURST: must be a whole number above 0',
    ],
    [
      () => loadConfig({ ...service, LOG_LEVEL: 'loud' }),
      'invalid environment: LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent',
    ],
    [
      () => loadStartConfig({ TEMPORAL_UI_PORT: 'eighty' }),
      'invalid environment: TEMPORAL_UI_PORT: must be a port number (0 to 65535)',
    ],
    [
      () => loadLocalStackConfig({ RUNWAY_ENCRYPTION_KEY: 'c2hvcnQ=' }),
      'invalid environment: RUNWAY_ENCRYPTION_KEY: RUNWAY_ENCRYPTION_KEY must be base64 of 32 random bytes',
    ],
    [() => loadToolsConfig({ XDG_CACHE_HOME: '' }), 'invalid environment: XDG_CACHE_HOME: must be a folder'],
    [
      () => loadRunwayCliConfig({ RUNWAY_URL: 'runway' }),
      'invalid environment: RUNWAY_URL: must be a URL such as http://localhost:3000',
    ],
  ])('refuses a bad value naming the variable and what it must be (%#)', (load, message) => {
    expect(load).toThrow(EnvironmentError);
    expect(load).toThrow(message);
  });

  it('names every bad variable at once, never its value', () => {
    const secret = 'postgres://runway:hunter2@db/runway';
    expect(() =>
      loadConfig({ DATABASE_URL: secret, RUNWAY_ENCRYPTION_KEY: 'hunter2', METRICS_TOKEN: '', PUBLIC_URL: 'hunter2' }),
    ).toThrow(/^invalid environment: RUNWAY_ENCRYPTION_KEY: .+; PUBLIC_URL: .+; METRICS_TOKEN: [^;]+$/);
    const refusal = (() => {
      try {
        loadConfig({ DATABASE_URL: secret, RUNWAY_ENCRYPTION_KEY: 'hunter2', PUBLIC_URL: 'hunter2' });
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(refusal).toMatch(/^invalid environment: RUNWAY_ENCRYPTION_KEY: /);
    expect(refusal).not.toContain('hunter2');
  });
});
