import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { environmentKeySource, Keyring } from '../../db/keyring.js';
import { checkSecretsAtStart } from '../../db/startupCheck.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

const root = new URL('../..', import.meta.url).pathname;

/** Runs an entry point until it exits (a refusal comes before it ever reaches Temporal). */
function runEntry(script: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['RUNWAY_ENCRYPTION_KEY', 'RUNWAY_DATA_DIR', 'DATABASE_URL']) delete base[name];
  // An address nothing listens on: a process that got past the key check would fail there instead, differently.
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: root,
    env: { ...base, TEMPORAL_ADDRESS: '127.0.0.1:9', PORT: '0', ...env },
  });
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    }),
  );
}

describe('every process refuses to start with a key its database was not sealed with', () => {
  const sealedWith = Keyring.generateKey();
  const wrong = Keyring.generateKey();
  let db: TestDatabase;
  let dataDir: string;
  beforeAll(async () => {
    db = await createTestDatabase();
    await checkSecretsAtStart(db.sql, Keyring.fromSetting(sealedWith), environmentKeySource);
    dataDir = mkdtempSync(join(tmpdir(), 'runway-keycheck-'));
    chmodSync(dataDir, 0o755);
  });
  afterAll(async () => {
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it.each(['api/main.ts', 'worker/main.ts'])(
    '%s exits 1 with a message naming RUNWAY_ENCRYPTION_KEY',
    async (script) => {
      const { code, output } = await runEntry(script, { DATABASE_URL: db.url, RUNWAY_ENCRYPTION_KEY: wrong });
      expect(code).toBe(1);
      expect(output).toContain(
        `RUNWAY_ENCRYPTION_KEY does not hold the key this database's secrets are sealed with (key id ${Keyring.fromSetting(sealedWith).newest.id}`,
      );
    },
  );

  it('npm start from a data folder without a key refuses to create one for this database', async () => {
    const { code, output } = await runEntry('scripts/start.ts', { DATABASE_URL: db.url, RUNWAY_DATA_DIR: dataDir });
    expect(code).toBe(1);
    expect(output).toContain(
      `[runway] no encryption key: RUNWAY_ENCRYPTION_KEY is not set and ${join(dataDir, 'encryption.key')} does not exist`,
    );
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('npm start with a key file of another key names the file', async () => {
    writeFileSync(join(dataDir, 'encryption.key'), `${wrong}\n`);
    const { code, output } = await runEntry('scripts/start.ts', { DATABASE_URL: db.url, RUNWAY_DATA_DIR: dataDir });
    expect(code).toBe(1);
    expect(output).toContain(
      `[runway] the key file ${join(dataDir, 'encryption.key')} does not hold the key this database's secrets are sealed with`,
    );
  });
});
