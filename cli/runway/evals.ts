import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Option, type Command } from 'commander';
import {
  RunwayApiError,
  type EvalIteration,
  type EvalRun,
  type EvalRunComparison,
  type EvalRunCreated,
  type EvalRunEstimate,
} from '../../api/client.js';
import { sumCosts } from '../../domain/models/prices.js';
import { caseVerdict, countVerdicts, finishedCount, iterationVerdict } from '../../domain/evals/verdicts.js';
import { collect } from '../options.js';
import { failOnChoices, formatComparison, formatModelChoices, gateFails, gateLine, type FailOn } from './compare.js';
import { ExitCode, UsageError, type Action, type CliContext } from './context.js';
import { describeCall, toJunitXml } from './junit.js';
import { progressView } from './progress.js';
import { readSuiteFile } from './suiteFile.js';
import { counted, formatTable, percent, usd } from './table.js';

const finished = (run: EvalRun) => run.status !== 'running' && run.status !== 'queued';
/** The run passed: it completed and met its pass criteria. Anything else fails a CI job. */
const passed = (run: EvalRun) => run.status === 'completed' && run.result === 'passed';

/** What the process exits with for a run it reports on (see EXIT_CODES in program.ts). */
const exitCodeOf = (run: EvalRun) => (!finished(run) ? ExitCode.running : passed(run) ? ExitCode.ok : ExitCode.failed);

/*
 * Two ways an iteration does not pass (domain/evals/verdicts.ts, as the API counts them): it errored (the model, the
 * provider or a server broke, so it was never scored) or it failed (scored, and it did not meet the expectations).
 * They need different fixes, so they are counted apart.
 */
const errored = (i: EvalIteration) => iterationVerdict(i) === 'errored';

async function suiteNameOf(ctx: CliContext, suiteId: string): Promise<string> {
  const { items } = await ctx.client.evalSuites.list(ctx.projectId);
  return items.find((s) => s.id === suiteId)?.name ?? suiteId;
}

type RunBody = Parameters<CliContext['client']['evalRuns']['create']>[1];

/**
 * A suite file names its suite, and suite names are not unique (POST /eval-runs with a suiteName makes a new suite
 * each time): the CLI reruns the newest suite of that name, so that every run of one file lands in one suite (its
 * run history, trend and comparisons), and makes the suite the first time.
 */
async function rerunSuiteByName(ctx: CliContext, body: RunBody): Promise<RunBody> {
  if (body.suiteId || !body.suiteName) return body;
  const { items } = await ctx.client.evalSuites.list(ctx.projectId);
  const newest = items.filter((s) => s.name === body.suiteName).sort((a, b) => b.createdAt - a.createdAt)[0];
  if (!newest) return body;
  const { suiteName: _name, suiteDescription: _description, ...rerun } = body;
  return { ...rerun, suiteId: newest.id };
}

/** The iterations of each case, in the order the run lists them. */
function byCase(iterations: EvalIteration[]): EvalIteration[][] {
  const cases = new Map<string, EvalIteration[]>();
  for (const iteration of iterations) {
    const key = iteration.testCaseId ?? iteration.title;
    cases.set(key, [...(cases.get(key) ?? []), iteration]);
  }
  return [...cases.values()];
}

/** Per case: iterations, passed, failed, errored, pass rate (of the finished ones), median latency, cost. */
function caseTable(cases: EvalIteration[][]): string {
  const rows = cases.map((list) => {
    const counts = countVerdicts(list);
    const done = finishedCount(counts);
    const durations = list
      .map((i) => i.durationMs)
      .filter((d): d is number => d !== null)
      .sort((a, b) => a - b);
    const median = durations.length ? Math.round(durations[Math.floor((durations.length - 1) / 2)]) : '-';
    return [
      list[0].title,
      counts.total,
      counts.passed,
      counts.failed,
      counts.errored,
      percent(done ? counts.passed / done : null),
      median,
      // what its finished iterations cost; unknown when one of them has no known price
      usd(sumCosts(list.filter((i) => i.status === 'completed' || i.status === 'failed').map((i) => i.costUsd))),
    ];
  });
  return formatTable(['CASE', 'ITERATIONS', 'PASSED', 'FAILED', 'ERRORED', 'PASS RATE', 'MEDIAN MS', 'COST'], rows, {
    align: ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
  });
}

const MAX_PROBLEM = 300;
const oneLine = (text: string) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= MAX_PROBLEM ? line : `${line.slice(0, MAX_PROBLEM - 1)}…`;
};

/** Why one iteration did not pass, in a line. */
function problemOf(iteration: EvalIteration): string {
  if (errored(iteration)) return `errored: ${oneLine(iteration.error ?? 'the iteration failed')}`;
  if (iteration.error) return oneLine(iteration.error);
  const expected = iteration.expectedToolCalls.map(describeCall).join('; ') || 'no tool calls';
  const actual =
    iteration.actualToolCalls.map((c) => `${describeCall(c)}${c.isError ? ' (tool error)' : ''}`).join('; ') ||
    'no tool calls';
  return oneLine(`the tool calls did not match: expected ${expected}; got ${actual}`);
}

/**
 * The first problem of each case that failed or errored, so a failed run says why without opening the JUnit file:
 * its first failed iteration, else its first errored one.
 */
function firstProblems(cases: EvalIteration[][]): string[] {
  return cases.flatMap((list) => {
    const verdict = caseVerdict(countVerdicts(list));
    if (verdict !== 'failed' && verdict !== 'errored') return [];
    const first = list.find((i) => iterationVerdict(i) === verdict)!;
    return [`  ${first.title} #${first.iterationNumber}: ${problemOf(first)}`];
  });
}

function resultLine(run: EvalRun): string {
  const summary = run.summary;
  const counts = summary
    ? `${summary.passed} of ${counted(summary.total, 'iteration')} passed (${percent(summary.passRate)}; needs ${run.passCriteria.minimumPassRate}%)`
    : `${run.progress.passed} of ${counted(run.progress.total, 'iteration')} passed`;
  // The run's own counts (its progress counts every iteration, as the API defines passed, failed and errored).
  const { failed, errored: broke } = run.progress;
  const verdict = run.status === 'completed' ? (run.result ?? 'pending').toUpperCase() : run.status.toUpperCase();
  // A summary of a run ended before costs were recorded has no costUsd: nothing is said then.
  const cost = summary && summary.costUsd !== undefined ? `; cost ${usd(summary.costUsd)}` : '';
  return `Result: ${verdict}, ${counts}${failed > 0 ? `; ${failed} failed` : ''}${broke > 0 ? `; ${broke} errored before they could be scored` : ''}${cost}${run.error ? `; ${run.error}` : ''}`;
}

/** A dry run's estimate: the plan, per case and model what it is expected to cost, and the total with its range. */
export function formatEstimate(estimate: EvalRunEstimate): string {
  const range = (r: EvalRunEstimate['costUsd']) =>
    r ? `${usd(r.expected)} (${usd(r.low)} to ${usd(r.high)})` : 'unknown';
  const rows = estimate.plan.entries.map((e) => [
    e.title,
    e.model ?? '-',
    e.iterations,
    e.basis === 'history' ? `history (${e.historyIterations})` : 'heuristic',
    Math.round(e.tokensPerIteration.input + e.tokensPerIteration.output),
    range(e.costUsd),
  ]);
  const { plan } = estimate;
  return [
    `Dry run: suite ${estimate.suite.name}${estimate.suite.id ? ` (${estimate.suite.id})` : ' (new)'}: ${counted(plan.cases, 'case')} x ${counted(plan.models, 'model')} = ${counted(plan.iterations, 'iteration')}; nothing was started`,
    formatTable(['CASE', 'MODEL', 'ITERATIONS', 'BASIS', 'TOKENS/ITERATION', 'COST'], rows, {
      align: ['left', 'left', 'right', 'left', 'right', 'right'],
    }),
    `Expected cost: ${range(estimate.costUsd)}, about ${estimate.tokens.total} tokens`,
    ...(estimate.unpricedModels.length > 0
      ? [`No known price for ${estimate.unpricedModels.join(', ')} (an operator sets one: runway-admin model-prices)`]
      : []),
    ...(estimate.budget?.maxCostUsd !== undefined ? [`Budget: ${usd(estimate.budget.maxCostUsd)}`] : []),
    `How: ${estimate.heuristic}; default prices as of ${estimate.pricesAsOf}`,
  ].join('\n');
}

/**
 * Writes the JUnit file (when asked) and prints the run: its cases, the first problem of each case that did not
 * pass, and the result. `partial`: the run was stopped (interrupted, timed out); the report is still written, so
 * a CI job's "keep the report" step has one, and a failure to read the iterations leaves them out instead of
 * losing the report.
 */
async function report(
  ctx: CliContext,
  run: EvalRun,
  suiteName: string,
  junitPath: string | undefined,
  partial = false,
  comparison?: EvalRunComparison,
): Promise<void> {
  let iterations: EvalIteration[] = [];
  try {
    iterations = await ctx.client.evalRuns.allIterations(ctx.projectId, run.id);
  } catch (error) {
    if (!partial) throw error;
    ctx.note(`[runway] could not read the run's iterations (${(error as Error).message}); the report lists none`);
  }
  if (junitPath) {
    const path = resolve(junitPath);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, toJunitXml({ suiteName, run, iterations, comparison }));
    ctx.note(`[runway] JUnit report written to ${path}`);
  }
  if (ctx.json) {
    ctx.print(JSON.stringify({ ...run, suiteName, iterations, ...(comparison && { comparison }) }, null, 2));
    return;
  }
  ctx.print(`Suite: ${suiteName}   Run: ${run.id} (#${run.runNumber})   Status: ${run.status}`);
  const cases = byCase(iterations);
  if (cases.length > 0) ctx.print(caseTable(cases));
  const problems = firstProblems(cases);
  if (problems.length > 0) ctx.print(['Why cases did not pass (the first problem of each):', ...problems].join('\n'));
  ctx.print(resultLine(run));
  const adaptive = adaptiveLines(run);
  if (adaptive) ctx.print(adaptive);
  if (comparison) ctx.print(formatComparison(comparison));
}

/** An adaptive run's cases: the iterations each spent and why it stopped; undefined for a fixed-n run. */
export function adaptiveLines(run: EvalRun): string | undefined {
  const adaptive = run.summary?.adaptive;
  if (!adaptive) return undefined;
  const spent = adaptive.cases.reduce((sum, c) => sum + c.iterations, 0);
  return [
    `Adaptive iterations against ${adaptive.baselineRunId} (at most ${adaptive.maxIterationsPerCase} per case, alpha ${adaptive.alpha}): ${spent} of ${adaptive.maxIterationsPerCase * adaptive.cases.length} spent`,
    ...adaptive.cases.map(
      (c) =>
        `  ${c.title}: ${c.iterations} iterations, ${c.stopReason}${c.pValue === null ? '' : ` (p ${c.pValue.toPrecision(3)})`}`,
    ),
  ].join('\n');
}

/** --adaptive-baseline with its bounds as POST /eval-runs' `adaptive`; a flag without the other is a usage error. */
function adaptiveOption(options: { adaptiveBaseline?: string; maxIterationsPerCase?: number; firstRound?: number }) {
  if (options.adaptiveBaseline === undefined) {
    if (options.maxIterationsPerCase !== undefined || options.firstRound !== undefined)
      throw new UsageError('--max-iterations-per-case and --first-round go with --adaptive-baseline');
    return undefined;
  }
  if (options.maxIterationsPerCase === undefined)
    throw new UsageError('--adaptive-baseline needs --max-iterations-per-case');
  return {
    baseline: options.adaptiveBaseline,
    maxIterationsPerCase: options.maxIterationsPerCase,
    stopWhen: 'decided' as const,
    ...(options.firstRound !== undefined && { firstRound: options.firstRound }),
  };
}

/**
 * The comparison of a run with its base (`previous`: the suite's previous completed run); undefined, with a note,
 * when the suite has no previous completed run (the first run of a suite gates on nothing).
 */
async function compareWith(ctx: CliContext, runId: string, base: string): Promise<EvalRunComparison | undefined> {
  try {
    return await ctx.client.evalRuns.compare(ctx.projectId, runId, base === 'previous' ? {} : { baseRunId: base });
  } catch (error) {
    if (error instanceof RunwayApiError && error.details?.reason === 'NO_PREVIOUS_RUN') {
      ctx.note('[runway] the suite has no previous completed run: nothing to compare with');
      return undefined;
    }
    throw error;
  }
}

const failOnOption = () =>
  new Option('--fail-on <what>', 'what fails the comparison: a significant regression, or any drop in a pass rate')
    .choices(failOnChoices)
    .default('significant-regression');

/** Resolves true after `ms`, false as soon as `stop` aborts (its listener goes with the timer: no leak per call). */
async function pause(ms: number, stop: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal: stop });
    return true;
  } catch (error) {
    if (stop.aborted) return false;
    throw error;
  }
}

/** SIGINT/SIGTERM while the command waits: aborts the wait (the run is then cancelled and reported). */
function stopOnSignal(): { signal: AbortSignal; release(): void } {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    signal: stop.signal,
    release() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/** When the organization's run cap is reached and no Retry-After says otherwise, ask again this often. */
const SLOT_POLL_MS = 10_000;

function runCapReason(error: RunwayApiError): string {
  const { activeRuns, maxConcurrentRuns } = error.details ?? {};
  if (typeof activeRuns === 'number' && typeof maxConcurrentRuns === 'number') {
    return `the organization already has ${counted(activeRuns, 'run')} running (limit ${maxConcurrentRuns})`;
  }
  return error.message;
}

/**
 * Creates the run; at the organization's cap on concurrent runs, says so and waits for a slot (asking again
 * after Retry-After) until the deadline. A CI job that starts while others run then runs a minute later instead
 * of failing.
 */
async function createRun(
  ctx: CliContext,
  body: RunBody,
  stop: AbortSignal,
  deadline: number,
): Promise<EvalRunCreated | 'interrupted' | 'timeout'> {
  let said: string | undefined;
  for (;;) {
    try {
      return await ctx.client.evalRuns.create(ctx.projectId, body);
    } catch (error) {
      if (!(error instanceof RunwayApiError && error.details?.reason === 'CONCURRENT_RUN_LIMIT')) throw error;
      const remaining = deadline - Date.now();
      if (remaining <= 0) return 'timeout';
      const line = `[runway] ${runCapReason(error)}; waiting for a slot`;
      if (line !== said) ctx.note(line);
      said = line;
      const wait = (error.retryAfterMs ?? SLOT_POLL_MS) + Math.round(Math.random() * 1000);
      if (!(await pause(Math.min(remaining, wait), stop))) return 'interrupted';
    }
  }
}

/** Polls the run until it finishes, the deadline passes, or a signal stops the wait. */
async function waitForRun(
  ctx: CliContext,
  runId: string,
  options: { pollMs: number; deadline: number; stop: AbortSignal },
): Promise<EvalRun | 'interrupted' | 'timeout'> {
  const view = progressView(ctx.stderr);
  try {
    for (;;) {
      const run = await ctx.client.evalRuns.get(ctx.projectId, runId);
      view.update(run.progress);
      if (finished(run)) return run;
      if (Date.now() > options.deadline) return 'timeout';
      if (!(await pause(options.pollMs, options.stop))) return 'interrupted';
    }
  } finally {
    view.stop();
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

const marginRate = (value: string) => {
  const n = Number(value);
  if (!(n > 0 && n < 1)) throw new UsageError('--margin must be a rate between 0 and 1 (0.05: five points)');
  return n;
};

export function evalCommands(program: Command, run: (action: Action) => (...args: unknown[]) => Promise<void>): void {
  const evals = program.command('evals').description('eval runs');

  evals
    .command('run')
    .description('start an eval run from a suite file, follow it, print a summary; exits 0 only when the run passed')
    .requiredOption(
      '-f, --suite-file <file>',
      'JSON: the POST /eval-runs body (suiteName, tests, model, ...), with `servers` as names or ids',
    )
    .option(
      '--junit <file>',
      'write the results as JUnit XML (also when the run is interrupted or times out: unfinished iterations are <skipped>)',
    )
    .option(
      '--model-key-env <provider=ENV_VAR>',
      "send this provider's model key, read from an environment variable (repeatable)",
      collect,
      [],
    )
    .option('--notes <text>', 'notes stored with the run')
    .addOption(
      new Option('--iterations <n>', 'run every case this many times (1-10), overriding the suite').argParser(
        positive('--iterations'),
      ),
    )
    .option(
      '--baseline <previous|runId>',
      "compare the finished run with a base run (previous: the suite's previous completed run); the exit code then follows --fail-on instead of the pass criteria",
    )
    .addOption(failOnOption())
    .option(
      '--adaptive-baseline <previous|runId>',
      'adaptive iterations: run the cases in rounds and stop each once its comparison with this run (previous: the suite\'s last completed run) is decided (docs/COMPARING.md, "Adaptive iterations"); needs --max-iterations-per-case',
    )
    .addOption(
      new Option(
        '--max-iterations-per-case <n>',
        'with --adaptive-baseline: the most iterations a case may spend (1-100)',
      ).argParser(positive('--max-iterations-per-case')),
    )
    .addOption(
      new Option(
        '--first-round <n>',
        'with --adaptive-baseline: iterations of every case in the first round (default 5)',
      ).argParser(positive('--first-round')),
    )
    .option('--no-wait', 'print the run id and exit at once')
    .option('--dry-run', 'start nothing: print the plan (cases x models x iterations) and its expected cost')
    .addOption(
      new Option('--poll-interval <ms>', 'how often to poll the run')
        .default(2000)
        .argParser(positive('--poll-interval')),
    )
    .addOption(
      new Option(
        '--timeout <seconds>',
        "give up after this long, waiting for a run slot (the organization's cap on concurrent runs) included; a run still going is cancelled",
      )
        .default(3600)
        .argParser(positive('--timeout')),
    )
    .addHelpText(
      'after',
      '\nExit codes: 0 the run passed (with --baseline: it completed and did not regress); 1 it failed, was cancelled, or timed out (or no run slot came free in time), or regressed; 2 the command could not run; 130 interrupted (the run is cancelled first).',
    )
    .action(
      run(async (ctx, command) => {
        const options = command.opts<{
          suiteFile: string;
          junit?: string;
          modelKeyEnv: string[];
          notes?: string;
          iterations?: number;
          wait: boolean;
          pollInterval: number;
          timeout: number;
          baseline?: string;
          failOn: FailOn;
          dryRun?: boolean;
          adaptiveBaseline?: string;
          maxIterationsPerCase?: number;
          firstRound?: number;
        }>();
        const adaptive = adaptiveOption(options);
        const suite = await readSuiteFile(ctx, options.suiteFile, options.modelKeyEnv);
        const body = await rerunSuiteByName(ctx, {
          ...suite.body,
          ...(options.notes ? { notes: options.notes } : {}),
          ...(options.iterations ? { iterationOverride: options.iterations } : {}),
          ...(adaptive && { adaptive }),
        });
        if (options.dryRun) {
          const estimate = await ctx.client.evalRuns.estimate(ctx.projectId, body);
          ctx.print(ctx.json ? JSON.stringify(estimate, null, 2) : formatEstimate(estimate));
          return ExitCode.ok;
        }
        const deadline = Date.now() + options.timeout * 1000;
        const stop = stopOnSignal();
        try {
          const created = await createRun(ctx, body, stop.signal, deadline);
          if (created === 'interrupted') {
            ctx.note('[runway] interrupted while waiting for a run slot; no run was started');
            return ExitCode.interrupted;
          }
          if (created === 'timeout') {
            ctx.note(`[runway] no run slot came free within ${options.timeout}s; no run was started`);
            return ExitCode.failed;
          }
          const failedCases = created.caseUpsert.failed;
          ctx.note(
            `[runway] run ${created.runId} started (suite ${created.suiteId}, ${counted(created.caseUpsert.committed.length, 'case')}, servers ${created.servers.map((s) => s.name).join(', ')})`,
          );
          for (const failure of failedCases)
            ctx.note(`[runway] warning: case "${failure.name}" was not saved: ${failure.error}`);
          // Cases that ingest created (e.g. from this suite's own JUnit report) hold results only: not run.
          if (created.leftOut) ctx.note(`[runway] ${created.leftOut.message}`);
          if (!options.wait) {
            ctx.print(ctx.json ? JSON.stringify(created, null, 2) : created.runId);
            return ExitCode.ok;
          }
          const suiteName = async () => suite.body.suiteName || (await suiteNameOf(ctx, created.suiteId));
          const outcome = await waitForRun(ctx, created.runId, {
            pollMs: options.pollInterval,
            deadline,
            stop: stop.signal,
          });
          if (outcome === 'interrupted' || outcome === 'timeout') {
            await cancel(
              ctx,
              created.runId,
              outcome === 'interrupted' ? 'interrupted' : `still running after ${options.timeout}s`,
            );
            // The run as it stands, reported like a finished one: what finished, and what did not.
            const stopped = await ctx.client.evalRuns.get(ctx.projectId, created.runId);
            await report(ctx, stopped, await suiteName().catch(() => suite.suiteName), options.junit, true);
            return outcome === 'interrupted' ? ExitCode.interrupted : ExitCode.failed;
          }
          if (!options.baseline) {
            await report(ctx, outcome, await suiteName(), options.junit);
            return exitCodeOf(outcome);
          }
          // With a baseline, a completed run passes unless it regressed (the gate replaces the pass criteria).
          const comparison =
            outcome.status === 'completed' ? await compareWith(ctx, outcome.id, options.baseline) : undefined;
          await report(ctx, outcome, await suiteName(), options.junit, false, comparison);
          if (outcome.status !== 'completed') return ExitCode.failed;
          if (comparison && !ctx.json) ctx.note(gateLine(comparison, options.failOn));
          return comparison && gateFails(comparison, options.failOn) ? ExitCode.failed : ExitCode.ok;
        } finally {
          stop.release();
        }
      }),
    );

  evals
    .command('regrade')
    .description(
      "grade a finished run's recorded conversations again with the suite's current expectations (no model or server is called; a judge check calls the judge): a new run, source regrade",
    )
    .argument('<runId>')
    .option('--wait', 'follow the new run until it ends and print its summary')
    .option(
      '--compare',
      'with --wait: compare the new run with the original (what changed there changed in the expectations); the exit code then follows --fail-on',
    )
    .addOption(failOnOption())
    .addOption(
      new Option('--poll-interval <ms>', 'how often to poll the run')
        .default(2000)
        .argParser(positive('--poll-interval')),
    )
    .addOption(
      new Option('--timeout <seconds>', 'with --wait: give up after this long (the re-grade is cancelled)')
        .default(3600)
        .argParser(positive('--timeout')),
    )
    .addHelpText(
      'after',
      '\nExit codes: 0 started (with --wait: the new run passed; with --compare: it did not regress); 1 it failed, was cancelled or timed out, or regressed; 2 the command could not run (a run still running, an ingested run, a deleted suite: the API says why).',
    )
    .action(
      run(async (ctx, command) => {
        const options = command.opts<{
          wait?: boolean;
          compare?: boolean;
          failOn: FailOn;
          pollInterval: number;
          timeout: number;
        }>();
        if (options.compare && !options.wait) throw new UsageError('--compare needs --wait');
        const originalId = command.args[0];
        const created = await ctx.client.evalRuns.regrade(ctx.projectId, originalId);
        for (const skipped of created.skipped)
          ctx.note(`[runway] case "${skipped.title}" is not re-graded: ${skipped.reason}`);
        if (!options.wait) {
          ctx.print(ctx.json ? JSON.stringify(created, null, 2) : created.runId);
          return ExitCode.ok;
        }
        ctx.note(`[runway] re-grading run ${originalId} as run ${created.runId} (${created.iterations} conversations)`);
        const stop = stopOnSignal();
        try {
          const outcome = await waitForRun(ctx, created.runId, {
            pollMs: options.pollInterval,
            deadline: Date.now() + options.timeout * 1000,
            stop: stop.signal,
          });
          if (outcome === 'interrupted' || outcome === 'timeout') {
            await cancel(
              ctx,
              created.runId,
              outcome === 'interrupted' ? 'interrupted' : `still running after ${options.timeout}s`,
            );
            return outcome === 'interrupted' ? ExitCode.interrupted : ExitCode.failed;
          }
          const comparison =
            options.compare && outcome.status === 'completed'
              ? await compareWith(ctx, outcome.id, originalId)
              : undefined;
          await report(ctx, outcome, await suiteNameOf(ctx, outcome.suiteId), undefined, false, comparison);
          if (!options.compare) return exitCodeOf(outcome);
          return !comparison || gateFails(comparison, options.failOn) ? ExitCode.failed : ExitCode.ok;
        } finally {
          stop.release();
        }
      }),
    );

  evals
    .command('show')
    .description("a run's status, per-case results and summary")
    .argument('<runId>')
    .option('--junit <file>', 'write the results as JUnit XML')
    .addHelpText(
      'after',
      '\nExit codes: 0 the run passed; 1 it failed or was cancelled; 3 it has not finished yet; 2 the command could not run.',
    )
    .action(
      run(async (ctx, command) => {
        const options = command.opts<{ junit?: string }>();
        const found = await ctx.client.evalRuns.get(ctx.projectId, command.args[0]);
        await report(ctx, found, await suiteNameOf(ctx, found.suiteId), options.junit);
        if (!ctx.json && found.status === 'running')
          ctx.print(`progress: ${found.progress.completed}/${found.progress.total} iterations finished`);
        return exitCodeOf(found);
      }),
    );

  evals
    .command('compare')
    .description(
      "compare a run with a base run (default: the suite's previous completed run): per case regressed, fixed, changed, new, removed; regressions first. With --by-model: the run's models against one another",
    )
    .argument('<runId>')
    .option('--base <runId>', "the base run (default: the suite's previous completed run)")
    .option('--by-model', "compare the run's models with one another (needs --margin): which model to pick")
    .option('--base-model <model>', 'with --by-model: the model the others are measured against (default: the first)')
    .addOption(
      new Option(
        '--margin <rate>',
        'non-inferiority margin as a rate (0.05: five points): is the current side no worse than the base by more than this',
      ).argParser(marginRate),
    )
    .addOption(failOnOption())
    .addHelpText(
      'after',
      "\nSignificance: Fisher's exact test per case, Benjamini-Hochberg at a false-discovery rate of 5% across the cases.\nNon-inferiority: the 95% Newcombe interval of the difference against -margin.\nExit codes: 0 no regression (with --by-model: always, once compared); 1 a regression (see --fail-on); 2 the command could not run.",
    )
    .action(
      run(async (ctx, command) => {
        const options = command.opts<{
          base?: string;
          byModel?: boolean;
          baseModel?: string;
          margin?: number;
          failOn: FailOn;
        }>();
        const runId = command.args[0];
        if (options.byModel) {
          if (options.margin === undefined) throw new UsageError('--by-model needs --margin');
          if (options.base) throw new UsageError('--by-model compares the models of one run: leave out --base');
          const models = await ctx.client.evalRuns.compareModels(ctx.projectId, runId, {
            margin: options.margin,
            ...(options.baseModel && { baseModel: options.baseModel }),
          });
          ctx.print(ctx.json ? JSON.stringify(models, null, 2) : formatModelChoices(models));
          return ExitCode.ok;
        }
        if (options.baseModel) throw new UsageError('--base-model goes with --by-model');
        const comparison = await ctx.client.evalRuns.compare(ctx.projectId, runId, {
          ...(options.base && { baseRunId: options.base }),
          ...(options.margin !== undefined && { margin: options.margin }),
        });
        ctx.print(ctx.json ? JSON.stringify(comparison, null, 2) : formatComparison(comparison));
        if (!ctx.json) ctx.note(gateLine(comparison, options.failOn));
        return gateFails(comparison, options.failOn) ? ExitCode.failed : ExitCode.ok;
      }),
    );
}
