import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fencedBlocks, localLinks, type FencedBlock } from '../helpers/markdown.js';
import { freePort } from '../helpers/ports.js';

/**
 * Runs every command block (```sh) of README.md, as written, against `npm start`, the way a newcomer follows it:
 * one shell in a second terminal, blocks in order, the scripted model server in a third terminal. Then, in the same
 * shell, the blocks of the docs pages that say at their top that they run after the README's quickstart (RUN_AFTER),
 * page after page in the order the README's index ("Where to read next") lists them: such a page may use the
 * variables the README's blocks set. A block fails the test when one of its commands exits non-zero
 * (`set -e -o pipefail`; the curl calls use `--fail-with-body`, so an HTTP error is a failure) or uses a variable
 * nothing set (`set -u`).
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const TRANSCRIPT = 'test-results/readme-transcript.txt';

/** The README's index of the docs pages: the pages that run are taken from it, in its order. */
const INDEX_HEADING = '## Where to read next';
/** What a page that runs says at its top, before its first section, for the reader and for this test. */
const RUN_AFTER = /^> \*\*Run after the README's quickstart, in the same shell\.\*\*/m;
/**
 * The visible mark of a block for another setting (your own Temporal cluster, your own test project): its first
 * line, a comment saying where it runs. The test does not run it; the rest of the comment is the reason.
 */
const ELSEWHERE = /^# Not in this folder: (.+)$/;

/** Blocks the test does not run although they are for this folder, by their exact text, each with the reason. */
const NOT_RUN = new Map<string, string>([
  [
    'npm install && npm start',
    'the stack under test: the test itself runs `npm start` (its own data folder and free ports, see PORTS) before the ' +
      "first block; `npm install` is the clone's setup, already done (running it would rewrite node_modules)",
  ],
  [
    'npm install --global .              # from another folder: npm install --global /path/to/runway',
    "changes the machine's global npm; the test puts the same executable on PATH instead: `runway`, a link to " +
      'cli/runway/bin.js (package.json "bin"), which is what a global install creates',
  ],
]);

/**
 * Blocks a reader starts in another terminal and leaves running, by their exact text: the test starts them in the
 * background, as written, before the shell, and waits for their ready line.
 */
const SERVICES = new Map<string, RegExp>([
  [
    'SCRIPTS_FILE=examples/scripted-model.json npx tsx test/fixtures/model/server.ts    # listens on http://127.0.0.1:4010/v1',
    /listening on http/,
  ],
]);

/** Commands that must never run unannounced: a block holding one must be marked ELSEWHERE, or in NOT_RUN or SERVICES. */
const NEEDS_A_DECISION = /(?:^|[;&|(`]|\$\()\s*(?:npm (?:install|i|ci|test|start)|docker|rm -rf)\b/m;
/** A curl call that fails on an HTTP error reply. */
const FAILING_CURL = /--fail(?:-with-body)?\b|\s-[a-zA-Z]*f[a-zA-Z]*\b/;

/** A block's commands without their comments (a `#` that starts a word, outside quotes as the README writes them). */
const commands = (text: string) =>
  text
    .split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, ''))
    .join('\n');

/**
 * What the README tells the reader to paste, and what the test pastes instead: each entry one thing a person
 * would copy. Any other placeholder left in a block fails the test (make a command of the README set it).
 */
const SUBSTITUTIONS: { placeholder: string; why: string; value: (stack: Stack) => string }[] = [
  {
    placeholder: 'sk_...',
    why: 'the demo API key `npm start` printed ("the demo key npm start printed")',
    value: (stack) => stack.demoKey,
  },
];
const PLACEHOLDER = /\b(?:sk|prj|org|usr|srv|run|sui|itr|key)_\.\.\./;

/**
 * PORTS. The README's URLs use `npm start`'s default ports (API 3000, scripted model server 4010, Temporal Web UI
 * 8233, demo MCP server 3001). The test never uses them: a reader's own `npm start`, or this test running in
 * another checkout, may hold them. It runs its stack on free ports (npm start's PORT, TEMPORAL_PORT,
 * TEMPORAL_UI_PORT, DEMO_MCP_PORT, EMBEDDED_POSTGRES_PORT; the scripted model server's PORT) and rewrites
 * `localhost:<default>` and `127.0.0.1:<default>` in the blocks to the port it chose.
 */
const DEFAULT_PORTS = { api: 3000, model: 4010, ui: 8233, demo: 3001 } as const;

interface Stack {
  demoKey: string;
  ports: Record<keyof typeof DEFAULT_PORTS | 'temporal' | 'postgres', number>;
}

/** A long-running process in its own process group (so that it can be stopped like Ctrl-C stops a terminal's). */
class Background {
  output = '';
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;

  constructor(
    readonly name: string,
    command: string,
    args: string[],
    options: { cwd: string; env: NodeJS.ProcessEnv },
  ) {
    this.child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.exited = new Promise((resolve) => this.child.once('exit', resolve));
  }

  /** Waits until the output matches every pattern; fails when the process ends first or the deadline passes. */
  async waitFor(patterns: RegExp[], timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!patterns.every((p) => p.test(this.output))) {
      if (this.child.exitCode !== null || this.child.signalCode !== null)
        throw new Error(`${this.name} ended before it was ready:\n${this.output}`);
      if (Date.now() > deadline)
        throw new Error(`${this.name} was not ready after ${timeoutMs / 1000}s:\n${this.output}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /**
   * Ctrl-C to the whole group, then waits until every process of the group is gone (npm returns at once while
   * the script it started is still stopping its own children); SIGKILL to what is left a minute later.
   */
  async stop(): Promise<void> {
    const group = -this.child.pid!;
    const alive = () => {
      try {
        process.kill(group, 0);
        return true;
      } catch {
        return false;
      }
    };
    if (!alive()) return;
    try {
      process.kill(group, 'SIGINT');
    } catch {
      // gone in the meantime
    }
    const deadline = Date.now() + 60_000;
    while (alive()) {
      if (Date.now() > deadline) {
        try {
          process.kill(group, 'SIGKILL');
        } catch {
          // gone in the meantime
        }
        break;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    await this.exited;
  }
}

/** A folder that looks like a fresh clone with `npm install` done: the checkout's files, not its `.data` or `.git`. */
function makeClone(): string {
  const clone = mkdtempSync(join(tmpdir(), 'runway-readme-clone-'));
  for (const entry of readdirSync(root)) {
    if (['.git', '.data', 'test-results', 'results.xml'].includes(entry)) continue;
    symlinkSync(join(root, entry), join(clone, entry));
  }
  return clone;
}

function mapPorts(text: string, ports: Stack['ports']): string {
  let mapped = text;
  for (const [name, port] of Object.entries(DEFAULT_PORTS) as [keyof typeof DEFAULT_PORTS, number][]) {
    mapped = mapped.replace(new RegExp(`\\b(localhost|127\\.0\\.0\\.1):${port}\\b`, 'g'), `$1:${ports[name]}`);
  }
  return mapped;
}

function substitute(text: string, stack: Stack): string {
  let result = mapPorts(text, stack.ports);
  for (const { placeholder, value } of SUBSTITUTIONS) result = result.split(placeholder).join(value(stack));
  return result;
}

const read = (path: string) => readFileSync(join(root, path), 'utf8');
const readme = read('README.md');

/** The docs pages the README's index links to, in its order, each once. */
function indexedPages(): string[] {
  const start = readme.indexOf(`\n${INDEX_HEADING}\n`);
  if (start < 0) return [];
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const pages = localLinks(section)
    .map((link) => link.path)
    .filter((path) => path.startsWith('docs/') && path.endsWith('.md'));
  return [...new Set(pages)];
}

/** A page's top: what comes before its first section. */
const top = (markdown: string) => markdown.split(/\n## /)[0];

/** The documents whose blocks run, in the order they run: the README, then the indexed pages that say so. */
const documents = ['README.md', ...indexedPages().filter((page) => RUN_AFTER.test(top(read(page))))];

/** A block and the document it is in. */
interface Located {
  doc: string;
  block: FencedBlock;
}
const where = ({ doc, block }: Located) => `${doc} line ${block.line}`;

const blocks: Located[] = documents.flatMap((doc) => fencedBlocks(read(doc)).map((block) => ({ doc, block })));
const shellBlocks = blocks.filter((b) => b.block.lang === 'sh');

type Plan = Located & ({ kind: 'skip'; reason: string } | { kind: 'service'; ready: RegExp } | { kind: 'run' });

function plan(): Plan[] {
  return shellBlocks.map((located): Plan => {
    const text = located.block.text.trim();
    const elsewhere = ELSEWHERE.exec(text.split('\n')[0]);
    if (elsewhere) return { ...located, kind: 'skip', reason: elsewhere[1] };
    const reason = NOT_RUN.get(text);
    if (reason) return { ...located, kind: 'skip', reason };
    const ready = SERVICES.get(text);
    if (ready) return { ...located, kind: 'service', ready };
    return { ...located, kind: 'run' };
  });
}

/** What a block that depends on the README's quickstart uses: it belongs on a page that runs. */
const USES_THE_QUICKSTART = /\$\{?(?:RUNWAY_API_KEY|API|AUTH|RUN|SUITE)\b|\b(?:localhost|127\.0\.0\.1):(?:3000|4010)\b/;

describe('the README, followed from top to bottom against npm start', () => {
  it('runs the pages of its index that say they run after the quickstart, and only those', () => {
    expect(indexedPages().length, `the README has no "${INDEX_HEADING}" index of docs pages`).toBeGreaterThan(0);
    const pages = readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`);
    // The index shows the reader which pages run after the quickstart: their entries start with ▶, and only theirs.
    const marked = readme
      .split('\n')
      .filter((line) => line.startsWith('- [docs/') && /\): ▶ /.test(line))
      .map((line) => /^- \[(docs\/[^\]]+)\]/.exec(line)![1]);
    expect(marked, 'the index marks with ▶ exactly the pages that run after the quickstart').toEqual(
      documents.slice(1),
    );
    for (const page of pages) {
      const text = read(page);
      if (RUN_AFTER.test(text)) {
        expect(
          documents,
          `${page} says it runs after the README's quickstart: the README's index must list it, and it must say so at its top`,
        ).toContain(page);
        continue;
      }
      // A page that does not run holds no block that needs the quickstart's stack or variables.
      for (const block of fencedBlocks(text).filter((b) => b.lang === 'sh'))
        expect(
          USES_THE_QUICKSTART.test(commands(block.text)) && !ELSEWHERE.test(block.text.trim().split('\n')[0]),
          `${page} line ${block.line} uses the quickstart's stack or variables but its page does not run; say at its top:\n` +
            "> **Run after the README's quickstart, in the same shell.**",
        ).toBe(false);
    }
  });

  it('marks every shell block ```sh, and names every block it does not run with the reason', () => {
    for (const { doc, block } of blocks)
      expect(
        ['sh', 'json', 'yaml', ''],
        `${doc} line ${block.line}: a \`\`\`${block.lang} block: commands go in \`\`\`sh blocks, which this test runs`,
      ).toContain(block.lang);
    const texts = new Set(shellBlocks.map((b) => b.block.text.trim()));
    for (const listed of [...NOT_RUN.keys(), ...SERVICES.keys()])
      expect(texts.has(listed), `no block of ${documents.join(', ')} reads exactly:\n${listed}`).toBe(true);
    for (const step of plan()) {
      if (step.kind !== 'run') continue;
      const code = commands(step.block.text);
      expect(
        NEEDS_A_DECISION.test(code),
        `${where(step)}: this block needs a decision (a first line "# Not in this folder: <where it runs>", NOT_RUN with a reason, or SERVICES):\n${step.block.text}`,
      ).toBe(false);
      for (const line of code.split('\n').filter((l) => /\bcurl\s/.test(l))) {
        expect(
          FAILING_CURL.test(line),
          `${where(step)}: a curl call that would succeed on an error reply (use --fail-with-body):\n${line}`,
        ).toBe(true);
      }
    }
  });

  describe('every command block, run as written', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'runway-readme-data-'));
    // As root, embedded Postgres runs as the postgres user, which must be able to enter the folder.
    chmodSync(dataDir, 0o755);
    const clone = makeClone();
    const binDir = mkdtempSync(join(tmpdir(), 'runway-readme-bin-'));
    // What `npm install --global .` creates: the package's "bin" on PATH.
    symlinkSync(join(root, 'cli/runway/bin.js'), join(binDir, 'runway'));
    const running: Background[] = [];
    let stack: Stack;
    let userEnv: NodeJS.ProcessEnv;

    beforeAll(async () => {
      const [api, model, ui, demo, temporal, postgres] = await Promise.all([
        freePort(),
        freePort(),
        freePort(),
        freePort(),
        freePort(),
        freePort(),
      ]);
      const ports = { api, model, ui, demo, temporal, postgres };
      // A reader's shell: no test runner's variables, and no node_modules/.bin on PATH (npm run and npx find those).
      const path = (process.env.PATH ?? '').split(delimiter).filter((dir) => dir && !dir.includes('node_modules'));
      userEnv = {
        PATH: [binDir, ...path].join(delimiter),
        HOME: process.env.HOME,
        LANG: 'C.UTF-8',
        // Where this stack keeps its data and its Postgres listens: a reader's are the clone's .data and port
        // 54329, which npm start and the operator CLI find without being told.
        RUNWAY_DATA_DIR: dataDir,
        EMBEDDED_POSTGRES_PORT: String(postgres),
      };
      const npmStart = new Background('npm start', 'npm', ['start'], {
        cwd: clone,
        env: {
          ...userEnv,
          PORT: String(api),
          TEMPORAL_PORT: String(temporal),
          TEMPORAL_UI_PORT: String(ui),
          DEMO_MCP_PORT: String(demo),
          // A reader types these commands over minutes; the test sends them back to back, faster than the default
          // 60 requests a minute per key allow. The limits themselves are tested in test/integration.
          RATE_LIMIT_PER_MINUTE: '6000',
          RATE_LIMIT_BURST: '1000',
        },
      });
      running.push(npmStart);
      await npmStart.waitFor([/API: http/, /worker started/], 300_000);
      const demoKey = /Demo API key \(shown once, keep it\): (sk_\w+)/.exec(npmStart.output)?.[1];
      if (!demoKey) throw new Error(`npm start printed no demo key:\n${npmStart.output}`);
      stack = { demoKey, ports };
      await untilReady(`http://127.0.0.1:${api}/readyz`, 120_000);

      for (const step of plan()) {
        if (step.kind !== 'service') continue;
        const service = new Background(where(step), 'bash', ['-c', substitute(step.block.text, stack)], {
          cwd: clone,
          env: { ...userEnv, PORT: String(ports.model) },
        });
        running.push(service);
        await service.waitFor([step.ready], 120_000);
      }
    });

    afterAll(async () => {
      for (const service of running.reverse()) await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(clone, { recursive: true, force: true });
      rmSync(binDir, { recursive: true, force: true });
    });

    it('runs each block in one shell, in order, and every command succeeds', async () => {
      const steps = plan().filter((s): s is Extract<Plan, { kind: 'run' }> => s.kind === 'run');
      const script = [
        'set -euo pipefail',
        'exec 2>&1',
        `trap 'status=$?; echo "::readme-failed:: exit $status: $BASH_COMMAND"' ERR`,
      ];
      steps.forEach((step, index) => {
        const text = substitute(step.block.text, stack);
        expect(
          PLACEHOLDER.exec(text)?.[0],
          `${where(step)} leaves a placeholder the test cannot fill:\n${step.block.text}`,
        ).toBeUndefined();
        // On a line of its own: a block's output may not end with a newline.
        // With the shell's seconds so far, to see in the transcript which blocks take the time.
        script.push(`printf '\\n::readme-block:: ${index} %s (at %ss)\\n' '${where(step)}' "$SECONDS"`, text);
      });
      // After the last block, for the checks of what the README says about the results.
      script.push(`printf '\\n::readme-run:: %s\\n' "$RUN"`);
      const scriptFile = join(clone, '.readme-commands.sh');
      writeFileSync(scriptFile, `${script.join('\n')}\n`);

      const shell = new Background('the README shell', 'bash', [scriptFile], { cwd: clone, env: userEnv });
      running.push(shell);
      const timer = setTimeout(() => void shell.stop(), 900_000);
      const code = await shell.exited;
      clearTimeout(timer);
      // What a reader would have seen, kept for a look (like the API reference page's screenshot).
      mkdirSync(join(root, 'test-results'), { recursive: true });
      writeFileSync(join(root, TRANSCRIPT), shell.output);
      // And what the stack printed meanwhile, for when a block failed because of it.
      writeFileSync(join(root, 'test-results/readme-npm-start.txt'), running[0]?.output ?? '');

      const outputs = shell.output.split(/\n::readme-block:: \d+ [^\n]*\n/).slice(1);
      if (code !== 0) {
        const failed = steps[Math.max(0, outputs.length - 1)];
        const output = outputs.at(-1) ?? shell.output;
        expect.fail(
          `the block at ${where(failed)} failed (exit ${code}):\n${failed.block.text}\n--- its output ---\n${output.slice(-6000)}`,
        );
      }
      expect(outputs).toHaveLength(steps.length);

      // What the README says of the run started with curl: Echo and Small talk pass, Echo goodbye fails (the
      // scripted model echoes hello), 4 of 6, passed against its 60% criteria.
      const runId = /^::readme-run:: (run_\w+)$/m.exec(shell.output)?.[1];
      expect(runId).toBeDefined();
      const api = `http://127.0.0.1:${stack.ports.api}/api/v1/projects/default/eval-runs/${runId}`;
      const headers = { authorization: `Bearer ${stack.demoKey}` };
      const run = (await (await fetch(api, { headers })).json()) as {
        status: string;
        result: string;
        summary: { total: number; passed: number };
      };
      expect(run).toMatchObject({ status: 'completed', result: 'passed', summary: { total: 6, passed: 4 } });
      const { items } = (await (await fetch(`${api}/iterations?limit=50`, { headers })).json()) as {
        items: { title: string; result: string }[];
      };
      expect(items.filter((i) => i.result === 'failed').map((i) => i.title)).toEqual(['Echo goodbye', 'Echo goodbye']);
    }, 1_200_000);

    it('leaves no process of the stack behind', async () => {
      for (const service of [...running].reverse()) await service.stop();
      const out = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
      expect(out.split('\n').filter((line) => line.includes(dataDir) && !line.includes('ps -eo'))).toEqual([]);
    }, 180_000);
  });
});

async function untilReady(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await fetch(url).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`${url} answered ${status} after ${timeoutMs / 1000}s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
