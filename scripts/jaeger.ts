import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants, copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadToolsConfig, type ToolsConfig } from '../runtime/config.js';

/**
 * Jaeger v2 (an OpenTelemetry Collector distribution with an OTLP receiver, in-memory storage and a query API), the
 * backend the OpenTelemetry export test reads spans back from (test/integration/otel-export.test.ts).
 *
 * `go install github.com/jaegertracing/jaeger/cmd/jaeger@v1.76.0` fails (the module has replace directives), so
 * scripts/jaeger/go.mod pins it as a Go tool of a module of ours, with its go.sum; `go install tool` builds it.
 */
export const JAEGER_VERSION = '1.76.0';

const moduleDir = fileURLToPath(new URL('./jaeger', import.meta.url));

type Say = (line: string) => void;

function works(binary: string): boolean {
  try {
    accessSync(binary, constants.X_OK);
    return spawnSync(binary, ['version'], { stdio: 'ignore', timeout: 30_000 }).status === 0;
  } catch {
    return false;
  }
}

const machineCache = (tools: ToolsConfig) => join(tools.XDG_CACHE_HOME, 'runway', 'bin');

/** A working Jaeger binary on this machine: JAEGER_PATH, else the machine cache's; undefined when there is none. */
export function findJaeger(tools: ToolsConfig = loadToolsConfig()): string | undefined {
  if (tools.JAEGER_PATH) {
    if (works(tools.JAEGER_PATH)) return tools.JAEGER_PATH;
    throw new Error(`JAEGER_PATH=${tools.JAEGER_PATH} is not a working jaeger binary`);
  }
  const cached = join(machineCache(tools), `jaeger-${JAEGER_VERSION}`);
  return works(cached) ? cached : undefined;
}

/** Finds a working Jaeger (findJaeger), else builds it with Go from scripts/jaeger/go.mod into the machine cache. */
export function ensureJaeger(say: Say = (l) => console.error(l), tools: ToolsConfig = loadToolsConfig()): string {
  const found = findJaeger(tools);
  if (found) return found;
  if (spawnSync('go', ['version'], { stdio: 'ignore' }).status !== 0)
    throw new Error(`no Jaeger ${JAEGER_VERSION} binary (JAEGER_PATH, or the machine cache) and Go is not installed`);
  const cacheDir = machineCache(tools);
  const gobin = join(cacheDir, 'jaeger-build');
  mkdirSync(gobin, { recursive: true });
  say(`Jaeger not found; building v${JAEGER_VERSION} with go install tool (several minutes, once)...`);
  execFileSync('go', ['install', 'tool'], {
    cwd: moduleDir,
    stdio: ['ignore', 'inherit', 'inherit'],
    // eslint-disable-next-line no-restricted-properties -- passed on to go, not read
    env: { ...process.env, CGO_ENABLED: '0', GOTOOLCHAIN: 'local', GOBIN: gobin },
  });
  const target = join(cacheDir, `jaeger-${JAEGER_VERSION}`);
  copyFileSync(join(gobin, 'jaeger'), target);
  rmSync(gobin, { recursive: true, force: true });
  if (!works(target)) throw new Error(`built ${target}, but it does not run`);
  say(`Jaeger ready at ${target}`);
  return target;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(ensureJaeger());
}
