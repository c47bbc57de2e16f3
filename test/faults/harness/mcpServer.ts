import { join } from 'node:path';
import { serverEverythingEntry } from '../../../cli/seed.js';
import { freePort } from '../../helpers/ports.js';
import { startNodeProcess, type NodeProcess } from './processes.js';

/**
 * The reference MCP server over streamable HTTP as its own process group, logging into `dir` and covered by the
 * exit cleanup: one process that every organization of a load test can save, instead of a stdio child per server.
 */
export async function startEverythingHttp(dir: string): Promise<{ url: string; process: NodeProcess }> {
  const port = await freePort();
  const child = startNodeProcess(
    'everything',
    [serverEverythingEntry(), 'streamableHttp'],
    { ...process.env, PORT: String(port) },
    join(dir, 'everything.log'),
  );
  const deadline = Date.now() + 30_000;
  // Any HTTP answer means it listens.
  while (
    !(await fetch(`http://127.0.0.1:${port}/`).then(
      () => true,
      () => false,
    ))
  ) {
    if (Date.now() > deadline) {
      await child.stop();
      throw new Error(`server-everything did not start\n${child.logTail()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `http://127.0.0.1:${port}/mcp`, process: child };
}
