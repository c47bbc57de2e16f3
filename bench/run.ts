/**
 * `npm run bench`: every benchmark, each measuring itself and its baseline in the same run on this machine, then
 * one table. Each benchmark prints `BENCH {json}` lines (benchmark, ours, baseline, unit, ratio, target, met);
 * the full figures land in bench/results/latest.json (docs/PERFORMANCE.md is written from a run of this).
 *
 *   npm run bench                 all of them (several minutes)
 *   npm run bench -- eval-run     only the benchmarks whose script name contains the word
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface Figure {
  benchmark: string;
  ours: number;
  baseline: number | null;
  unit: string;
  ratio: number | null;
  target: string;
  /** null: a row without a target of its own (how a figure grows) */
  met: boolean | null;
  [extra: string]: unknown;
}

const benches: { script: string; args: string[] }[] = [
  { script: 'tools-call.ts', args: ['2000'] },
  { script: 'eval-run.ts', args: ['100', '3'] },
  // 1,000 iterations (the most one run plans) four times after a warm-up: the worker runs 5,000 in all.
  { script: 'eval-run.ts', args: ['1000', '4'] },
  // The same 1,000 with iteration isolation on (a fresh server process per iteration): what independence costs.
  { script: 'eval-run.ts', args: ['1000', '1', '--isolation=per-iteration'] },
  { script: 'ingest.ts', args: [] },
  // 200 iterations of a 200 ms model at concurrency 8, against the floor ceil(200/8) x 200 ms; time to first request
  { script: 'eval-efficiency.ts', args: ['200', '8', '3'] },
  // GET .../compare on two finished 1,000-iteration runs (written directly): median of 50 calls
  { script: 'compare.ts', args: ['1000', '50'] },
  // One run of 300 iterations on 3, 2 and 1 worker processes: workers bound by their activity slots (4 each, 12
  // lanes), then by a stdio server of their own that does one call at a time (50 ms; 32 slots, 24 lanes)
  { script: 'workers.ts', args: ['300', '4', '12', '2'] },
  { script: 'workers.ts', args: ['300', '32', '24', '2', '50'] },
  // Adaptive iterations (issue 31), a pure simulation: model calls per case against a fixed-n run of 50, both at
  // alpha 0.05, 4,000 simulated cases per scenario
  { script: 'adaptive.ts', args: ['10', '50', '4000'] },
];

const root = fileURLToPath(new URL('..', import.meta.url));
const only = process.argv[2];

async function run(script: string, args: string[]): Promise<Figure[]> {
  console.log(`\n=== bench/${script} ${args.join(' ')}`);
  const child = spawn(process.execPath, ['--import', 'tsx', `bench/${script}`, ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const figures: Figure[] = [];
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (line.startsWith('BENCH ')) figures.push(JSON.parse(line.slice(6)) as Figure);
      else console.log(line);
    }
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`bench/${script} exited with ${code}`);
  return figures;
}

const format = (value: number | null, unit: string) =>
  value === null
    ? '—'
    : unit === 'ms' && value >= 1000
      ? `${(value / 1000).toFixed(2)} s`
      : `${value.toFixed(value < 10 ? 2 : 1)} ${unit}`;

const figures: Figure[] = [];
for (const bench of benches.filter((b) => !only || b.script.includes(only)))
  figures.push(...(await run(bench.script, bench.args)));

const rows = figures.map((f) => [
  f.benchmark,
  format(f.ours, f.unit),
  format(f.baseline, f.unit),
  f.ratio === null ? '—' : `${f.ratio.toFixed(f.ratio < 0.1 ? 4 : 2)}x`,
  f.target,
  f.met === null ? '—' : f.met ? 'met' : 'NOT MET',
]);
const header = ['benchmark', 'ours', 'baseline', 'ratio', 'target', ''];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
console.log(`\n${line(header)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n${rows.map(line).join('\n')}`);

mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(
  new URL('./results/latest.json', import.meta.url),
  JSON.stringify({ at: new Date().toISOString(), figures }, null, 2),
);
