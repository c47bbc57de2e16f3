import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { startTemporalDevServer, type DevServer } from '../../scripts/temporal-dev-server.js';
import { PortInUseError } from '../../runtime/ports.js';
import { searchAttributeNames } from '../../workflows/definitions.js';
import { freePort } from '../helpers/ports.js';

/** The namespace's custom search attributes, by name. */
async function customAttributes(address: string): Promise<string[]> {
  const connection = await Connection.connect({ address });
  try {
    return Object.keys(
      (await connection.operatorService.listSearchAttributes({ namespace: 'default' })).customAttributes ?? {},
    );
  } finally {
    await connection.close();
  }
}

describe('the dev server npm start runs (scripts/temporal-dev-server.ts)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'runway-temporal-db-'));
  let server: DevServer | undefined;
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('registers a search attribute added since its database file was made', async () => {
    const options = { binary: inject('temporalBinary'), uiPort: null, dbFile: join(dir, 'temporal.db') };
    server = await startTemporalDevServer({ ...options, port: await freePort() });
    // As a data folder from before RunwayResult: the file has every other attribute.
    const connection = await Connection.connect({ address: server.address });
    await connection.operatorService.removeSearchAttributes({
      namespace: 'default',
      searchAttributes: [searchAttributeNames.result],
    });
    await connection.close();
    expect(await customAttributes(server.address)).not.toContain(searchAttributeNames.result);
    await server.stop();

    server = await startTemporalDevServer({ ...options, port: await freePort() });
    expect(await customAttributes(server.address)).toEqual(expect.arrayContaining(Object.values(searchAttributeNames)));
  }, 120_000);

  it('stops at once on a taken port, naming TEMPORAL_PORT or TEMPORAL_UI_PORT (issue 29 §2)', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const taken = (holder.address() as { port: number }).port;
    const logged: string[] = [];
    try {
      const binary = inject('temporalBinary');
      const frontend = await startTemporalDevServer({ binary, port: taken, uiPort: null, log: (l) => logged.push(l) })
        .then((s) => s.stop())
        .catch((e: unknown) => e);
      expect(frontend).toBeInstanceOf(PortInUseError);
      expect((frontend as Error).message).toMatch(
        new RegExp(`^port ${taken} \\(TEMPORAL_PORT, the Temporal dev server\\)`),
      );
      const ui = await startTemporalDevServer({ binary, port: await freePort(), uiPort: taken })
        .then((s) => s.stop())
        .catch((e: unknown) => e);
      expect(ui).toBeInstanceOf(PortInUseError);
      expect((ui as Error).message).toMatch(new RegExp(`^port ${taken} \\(TEMPORAL_UI_PORT, the Temporal Web UI\\)`));
      // A port someone else holds is not retried: it stays taken.
      expect(logged.join('\n')).not.toMatch(/retrying/);
    } finally {
      holder.close();
    }
  }, 60_000);
});
