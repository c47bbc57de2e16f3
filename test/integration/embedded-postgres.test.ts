import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../scripts/embedded-postgres.js';
import { PortInUseError } from '../../runtime/ports.js';

describe("npm start's embedded PostgreSQL (scripts/embedded-postgres.ts)", () => {
  it('on a taken port, fails with a sentence naming EMBEDDED_POSTGRES_PORT (it rejected with `undefined`)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'runway-embedded-pg-'));
    // As root, embedded Postgres runs as the postgres user, which must be able to enter the folder.
    chmodSync(dir, 0o755);
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const failure = await startEmbeddedPostgres({ dataDir: join(dir, 'postgres'), port })
        .then((db) => db.stop())
        .catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(PortInUseError);
      expect((failure as Error).message).toBe(
        `port ${port} (EMBEDDED_POSTGRES_PORT, the embedded PostgreSQL) is already in use: stop what listens there, or set EMBEDDED_POSTGRES_PORT to a free port`,
      );
    } finally {
      holder.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
