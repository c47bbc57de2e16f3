import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants, mkdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadToolsConfig, type ToolsConfig } from '../runtime/config.js';

/** The one CLI tag that can still be built with `go install`. */
export const TEMPORAL_CLI_VERSION = '1.5.1';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));
const toolsDir = join(projectRoot, '.tools', 'bin');

type Say = (line: string) => void;

function works(binary: string): boolean {
  try {
    accessSync(binary, constants.X_OK);
    return spawnSync(binary, ['--version'], { stdio: 'ignore', timeout: 30_000 }).status === 0;
  } catch {
    return false;
  }
}

function onPath(name: string): string | undefined {
  // eslint-disable-next-line no-restricted-properties -- the system's search path, looked up as a shell would: not a setting
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && works(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** Shared by every clone on the machine, so a fresh clone (CI) does not rebuild a 250 MB binary. */
const machineCache = (tools: ToolsConfig) => join(tools.XDG_CACHE_HOME, 'runway', 'bin');

/**
 * A working `temporal` binary already on this machine: TEMPORAL_CLI_PATH, then PATH, then the git-ignored tools
 * folder and the machine cache; undefined when there is none (`npm run temporal:provision` makes one).
 */
export function findTemporalCli(tools: ToolsConfig = loadToolsConfig()): string | undefined {
  const explicit = tools.TEMPORAL_CLI_PATH;
  if (explicit) {
    if (works(explicit)) return explicit;
    throw new Error(`TEMPORAL_CLI_PATH=${explicit} is not a working temporal binary`);
  }
  return (
    onPath('temporal') ??
    [join(toolsDir, 'temporal'), join(machineCache(tools), `temporal-${TEMPORAL_CLI_VERSION}`)].find(works)
  );
}

/**
 * Finds a working `temporal` binary (findTemporalCli); builds it with Go when none is found, else downloads the
 * official release.
 */
export async function ensureTemporalCli(
  say: Say = (l) => console.error(l),
  tools: ToolsConfig = loadToolsConfig(),
): Promise<string> {
  const found = findTemporalCli(tools);
  if (found) return found;

  const machineCacheDir = machineCache(tools);
  mkdirSync(machineCacheDir, { recursive: true });
  const target = join(machineCacheDir, `temporal-${TEMPORAL_CLI_VERSION}`);
  if (spawnSync('go', ['version'], { stdio: 'ignore' }).status === 0) {
    say(`temporal CLI not found; building v${TEMPORAL_CLI_VERSION} with go install (a few minutes, once)...`);
    const gobin = join(machineCacheDir, 'go-build');
    mkdirSync(gobin, { recursive: true });
    execFileSync('go', ['install', `github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}`], {
      stdio: ['ignore', 'inherit', 'inherit'],
      // eslint-disable-next-line no-restricted-properties -- passed on to go, not read
      env: { ...process.env, CGO_ENABLED: '0', GOTOOLCHAIN: 'local', GOBIN: gobin },
    });
    execFileSync('mv', [join(gobin, 'temporal'), target]);
  } else {
    say(`temporal CLI not found and Go is not installed; downloading the official v${TEMPORAL_CLI_VERSION} release...`);
    await downloadRelease(target, machineCacheDir);
  }
  if (!works(target)) throw new Error(`built ${target}, but it does not run`);
  say(`temporal CLI ready at ${target}`);
  return target;
}

async function downloadRelease(target: string, machineCacheDir: string): Promise<void> {
  const os = process.platform === 'darwin' ? 'darwin' : 'linux';
  const arch = process.arch === 'arm64' ? 'arm64' : 'amd64';
  const url = `https://temporal.download/cli/archive/v${TEMPORAL_CLI_VERSION}?platform=${os}&arch=${arch}`;
  const response = await fetch(url);
  if (!response.ok) throw new Error(`download of ${url} failed: HTTP ${response.status}`);
  const archive = `${target}.tar.gz`;
  const { writeFile } = await import('node:fs/promises');
  await writeFile(archive, Buffer.from(await response.arrayBuffer()));
  execFileSync('tar', ['-xzf', archive, '-C', machineCacheDir, 'temporal']);
  execFileSync('mv', [join(machineCacheDir, 'temporal'), target]);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(await ensureTemporalCli());
}
