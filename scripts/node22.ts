import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The MCP conformance suite (`@modelcontextprotocol/conformance`, a devDependency) needs Node 22, while Runway runs
 * on Node 20 and up. Its binary comes from the npm registry (`node-<platform>-<arch>`, which ships the executable
 * itself, no install script), into the machine cache that every clone shares, like the Temporal CLI. It is never
 * a project dependency: `node_modules/.bin/node` would shadow the Node that runs the service.
 */
export const NODE22_VERSION = '22.23.3';

const cacheDir = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'runway', `node-${NODE22_VERSION}`);
const packageName = `node-${process.platform}-${process.arch}`;

function works(binary: string): boolean {
  return existsSync(binary) && spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 30_000 }).stdout?.trim() === `v${NODE22_VERSION}`;
}

/** A working Node 22 binary: NODE22_PATH, else the machine cache, else installed from the registry into it. */
export function ensureNode22(say: (line: string) => void = (line) => console.error(line)): string {
  const explicit = process.env.NODE22_PATH;
  if (explicit) return explicit;
  const binary = join(cacheDir, 'node_modules', packageName, 'bin', 'node');
  if (works(binary)) return binary;
  say(`Node ${NODE22_VERSION} not found; installing ${packageName}@${NODE22_VERSION} from the npm registry (once)...`);
  mkdirSync(cacheDir, { recursive: true });
  execFileSync('npm', ['install', '--prefix', cacheDir, '--no-audit', '--no-fund', '--no-save', `${packageName}@${NODE22_VERSION}`], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (!works(binary)) throw new Error(`installed ${packageName}@${NODE22_VERSION}, but ${binary} does not run`);
  return binary;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(ensureNode22());
}
