import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { RunwayApiError, type EvalIteration, type EvalRun } from '../../api/client.js';
import { toJunitXml } from './junit.js';
import { ExitCode, UsageError, type Action, type CliContext } from './program.js';
import { progressView } from './progress.js';
import { readSuiteFile } from './suiteFile.js';
import { formatTable, percent } from './table.js';

const finished = (run: EvalRun) => run.status !== 'running';
/** The run passed: it completed and met its pass criteria. Anything else fails a CI job. */
const passed = (run: EvalRun) => run.status === 'completed' && run.result === 'passed';

async function suiteNameOf(ctx: CliContext, suiteId: string): Promise<string> {
  const { items } = await ctx.client.evalSuites.list(ctx.projectId);
  return items.find((s) => s.id === suiteId)?.name ?? suiteId;
}

/** Per case: iterations, passed, failed, pass rate, median latency. */
function caseTable(iterations: EvalIteration[]): string {
  const cases = new Map<string, EvalIteration[]>();
  for (const iteration of iterations) {
    const key = iteration.testCaseId ?? iteration.title;
    cases.set(key, [...(cases.get(key) ?? []), iteration]);
  }
  const rows = [...cases.values()].map((list) => {
    const ok = list.filter((i) => i.result === 'passed').length;
    const done = list.filter((i) => i.result !== null).length;
    const durations = list.map((i) => i.durationMs).filter((d): d is number => d !== null).sort((a, b) => a - b);
    const median = durations.length ? Math.round(durations[Math.floor((durations.length - 1) / 2)]) : '-';
    return [list[0].title, list.length, ok, done - ok, percent(done ? ok / done : null), median];
  });
  return formatTable(['CASE', 'ITERATIONS', 'PASSED', 'FAILED', 'PASS RATE', 'MEDIAN MS'], rows, {
    align: ['left', 'right', 'right', 'right', 'right', 'right'],
  });
}

function resultLine(run: EvalRun): string {
  const summary = run.summary;
  const counts = summary
    ? `${summary.passed} of ${summary.total} iterations passed (${percent(summary.passRate)}; needs ${run.passCriteria.minimumPassRate}%)`
    : `${run.progress.passed} of ${run.progress.total} iterations passed`;
  const verdict = run.status === 'completed' ? (run.result ?? 'pending').toUpperCase() : run.status.toUpperCase();
  return `Result: ${verdict}, ${counts}${run.error ? `; ${run.error}` : ''}`;
}

async function report(ctx: CliContext, run: EvalRun, suiteName: string, junitPath: string | undefined): Promise<void> {
  const iterations = await ctx.client.evalRuns.allIterations(ctx.projectId, run.id);
  if (junitPath) {
    const path = resolve(junitPath);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, toJunitXml({ suiteName, run, iterations }));
    ctx.note(`[runway] JUnit report written to ${path}`);
  }
  if (ctx.json) {
    ctx.print(JSON.stringify({ ...run, suiteName, iterations }, null, 2));
    return;
  }
  ctx.print(`Suite: ${suiteName}   Run: ${run.id} (#${run.runNumber})   Status: ${run.status}`);
  if (iterations.length > 0) ctx.print(caseTable(iterations));
  ctx.print(resultLine(run));
}

/** Polls the run until it finishes; resolves `interrupted` when SIGINT/SIGTERM arrives first. */
async function waitForRun(ctx: CliContext, runId: string, options: { pollMs: number; timeoutMs: number }): Promise<EvalRun | 'interrupted' | 'timeout'> {
  const view = progressView(ctx.stderr);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const deadline = Date.now() + options.timeoutMs;
  try {
    for (;;) {
      const run = await ctx.client.evalRuns.get(ctx.projectId, runId);
      view.update(run.progress);
      if (finished(run)) return run;
      if (Date.now() > deadline) return 'timeout';
      const slept = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(true), options.pollMs);
        stop.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve(false);
        }, { once: true });
      });
      if (!slept || stop.signal.aborted) return 'interrupted';
    }
  } finally {
    view.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

async function cancel(ctx: CliContext, runId: string, why: string): Promise<void> {
  ctx.note(`[runway] ${why}: cancelling run ${runId}`);
  try {
    await ctx.client.evalRuns.cancel(ctx.projectId, runId);
  } catch (error) {
    // Finished in the meantime: nothing to cancel.
    if (!(error instanceof RunwayApiError && error.code === 'CONFLICT')) throw error;
  }
}

const positive = (name: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${name} must be a positive number`);
  return n;
};
const collect = (value: string, previous: string[] = []) => [...previous, value];

export function evalCommands(program: Command, run: (action: Action) => (...args: unknown[]) => Promise<void>): void {
  const evals = program.command('evals').description('eval runs');

  evals
    .command('run')
    .description('start an eval run from a suite file, follow it, print a summary; exits 1 unless the run passed')
    .requiredOption('-f, --suite-file <file>', 'JSON: the POST /eval-runs body (suiteName, tests, model, ...), with `servers` as names or ids')
    .option('--junit <file>', 'write the results as JUnit XML')
    .option('--model-key-env <provider=ENV_VAR>', "send this provider's model key, read from an environment variable (repeatable)", collect, [])
    .option('--notes <text>', 'notes stored with the run')
    .addOption(new Option('--iterations <n>', 'run every case this many times (1-10), overriding the suite').argParser(positive('--iterations')))
    .option('--no-wait', 'print the run id and exit at once')
    .addOption(new Option('--poll-interval <ms>', 'how often to poll the run').default(2000).argParser(positive('--poll-interval')))
    .addOption(new Option('--timeout <seconds>', 'give up (and cancel the run) after this long').default(3600).argParser(positive('--timeout')))
    .action(run(async (ctx, command) => {
      const options = command.opts<{ suiteFile: string; junit?: string; modelKeyEnv: string[]; notes?: string; iterations?: number; wait: boolean; pollInterval: number; timeout: number }>();
      const suite = await readSuiteFile(ctx, options.suiteFile, options.modelKeyEnv);
      const body = { ...suite.body, ...(options.notes ? { notes: options.notes } : {}), ...(options.iterations ? { iterationOverride: options.iterations } : {}) };
      const created = await ctx.client.evalRuns.create(ctx.projectId, body);
      const failedCases = created.caseUpsert.failed;
      ctx.note(`[runway] run ${created.runId} started (suite ${created.suiteId}, ${created.caseUpsert.committed.length} cases, servers ${created.servers.map((s) => s.name).join(', ')})`);
      for (const failure of failedCases) ctx.note(`[runway] warning: case "${failure.name}" was not saved: ${failure.error}`);
      if (!options.wait) {
        ctx.print(ctx.json ? JSON.stringify(created, null, 2) : created.runId);
        return ExitCode.ok;
      }
      const outcome = await waitForRun(ctx, created.runId, { pollMs: options.pollInterval, timeoutMs: options.timeout * 1000 });
      if (outcome === 'interrupted') {
        await cancel(ctx, created.runId, 'interrupted');
        return ExitCode.interrupted;
      }
      if (outcome === 'timeout') {
        await cancel(ctx, created.runId, `still running after ${options.timeout}s`);
        return ExitCode.failed;
      }
      const suiteName = suite.body.suiteName || (await suiteNameOf(ctx, outcome.suiteId));
      await report(ctx, outcome, suiteName, options.junit);
      return passed(outcome) ? ExitCode.ok : ExitCode.failed;
    }));

  evals
    .command('show')
    .description("a run's status, per-case results and summary")
    .argument('<runId>')
    .option('--junit <file>', 'write the results as JUnit XML')
    .action(run(async (ctx, command) => {
      const options = command.opts<{ junit?: string }>();
      const found = await ctx.client.evalRuns.get(ctx.projectId, command.args[0]);
      await report(ctx, found, await suiteNameOf(ctx, found.suiteId), options.junit);
      if (!ctx.json && found.status === 'running') ctx.print(`progress: ${found.progress.completed}/${found.progress.total} iterations finished`);
      return ExitCode.ok;
    }));
}
