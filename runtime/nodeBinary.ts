import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadToolsConfig, type Config, type ToolsConfig } from './config.js';

/**
 * Node versions besides the one that runs Runway here (20): the MCP conformance suite
 * (`@modelcontextprotocol/conformance`, which the worker runs for conformance checks) needs Node 22, and CI runs the
 * unit tests on Node 24, the LTS the production image (Dockerfile) starts from. Each binary comes from the npm
 * registry (`node-<platform>-<arch>`, which ships the executable itself, no install script), into the machine cache
 * that every clone shares, like the Temporal CLI. It is never a project dependency: `node_modules/.bin/node` would
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

/** Where the machine cache keeps that Node major's binary (whether or not it is there). */
export function cachedNodePath(major: NodeMajor, tools: Pick<ToolsConfig, 'XDG_CACHE_HOME'>): string {
  return join(
    tools.XDG_CACHE_HOME,
    'runway',
    `node-${NODE_VERSIONS[major]}`,
    'node_modules',
    packageName,
    'bin',
    'node',
  );
}

/** The machine cache's binary of that Node major when it is there and runs; else undefined (nothing installed). */
export function cachedNode(major: NodeMajor, tools: Pick<ToolsConfig, 'XDG_CACHE_HOME'>): string | undefined {
  const binary = cachedNodePath(major, tools);
  return works(binary, NODE_VERSIONS[major]) ? binary : undefined;
}

/**
 * A working binary of that Node major: `NODE<major>_PATH` (e.g. NODE22_PATH), else the machine cache, else
 * installed from the registry into it (`npx tsx scripts/node-binary.ts 22`).
 */
export function ensureNode(
  major: NodeMajor,
  say: (line: string) => void = (line) => console.error(line),
  tools: ToolsConfig = loadToolsConfig(),
): string {
  const explicit = tools[`NODE${major}_PATH`];
  if (explicit) return explicit;
  const version = NODE_VERSIONS[major];
  const binary = cachedNodePath(major, tools);
  if (works(binary, version)) return binary;
  const cacheDir = join(tools.XDG_CACHE_HOME, 'runway', `node-${version}`);
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

/** The oldest Node major the conformance suite runs on (it uses fs.globSync). */
export const CONFORMANCE_NODE_MAJOR = 22;

/**
 * The Node binary the worker runs the conformance suite with: this process's own when it is Node 22 or later (the
 * production image), else CONFORMANCE_NODE_PATH, else NODE22_PATH, else the machine cache's Node 22
 * (`npx tsx scripts/node-binary.ts 22` puts it there). Never installs anything; undefined when none is found (the
 * check then fails saying how to provide one).
 */
export function conformanceNodeBinary(
  config: Pick<Config, 'CONFORMANCE_NODE_PATH'>,
  tools: ToolsConfig = loadToolsConfig(),
  running: { execPath: string; version: string } = process,
): string | undefined {
  if (Number(running.version.replace(/^v/, '').split('.')[0]) >= CONFORMANCE_NODE_MAJOR) return running.execPath;
  return config.CONFORMANCE_NODE_PATH ?? tools.NODE22_PATH ?? cachedNode(22, tools);
}
