import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { startTemporalDevServer, type DevServer } from '../../scripts/temporal-dev-server.js';
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
});
