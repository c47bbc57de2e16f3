import './runs.css';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { followRun, type EvalIteration } from '../runEvents';
import type { EvalRun } from '../types';
import { CaseTable } from '../components/caseTable';
import { IterationList } from '../components/iterationList';
import { ToolAnalysisView, type ToolAnalysis } from '../components/toolAnalysis';
import { count } from '../components/figures';
import { ErrorMessage } from '../components/feedback';
import { duration, interval, percent, usd, when } from '../format';
import { useApi } from '../hooks';
import { href, navigate } from '../router';
import { paths } from '../paths';
import type { RunStatistics } from '../../../domain/evals/statistics';

/**
 * One run: followed live over its events stream (one request however long it runs), then its per-case table, its
 * models and its tool analysis (one more request once it finished).
 */
export function RunView({ params }: { params: Record<string, string>; query: URLSearchParams }) {
  const { projectId, runId } = params;
  const live = useRunEvents(projectId, runId);
  const { run, iterations, ended, failure } = live;
  const base = `/projects/${encodeURIComponent(projectId)}/eval-runs/${encodeURIComponent(runId)}`;
  const tools = useApi<ToolAnalysis>(ended && run ? `${base}/tools` : null);

  if (failure && !run) return <ErrorMessage error={failure} action="Could not follow this run" />;
  if (!run)
    return (
      <p class="loading" role="status">
        Loading the run…
      </p>
    );

  // a queued run (issue 33) is followed live like a running one, until it ends
  const running = run.status === 'running' || run.status === 'queued';
  const summary = run.summary as (EvalRun['summary'] & Partial<RunStatistics>) | null;
  return (
    <article class="run-view">
      <nav class="crumbs" aria-label="Breadcrumbs">
        <a href={href(paths.suites)}>Projects</a> ›{' '}
        <a href={href(paths.suite, { projectId, suiteId: run.suiteId })}>Suite</a> › Run #{run.runNumber}
      </nav>
      <header class="view-header">
        <h1>
          Run #{run.runNumber} <StatusBadge status={run.status} result={run.result} />
        </h1>
        <p class="muted">
          Source <span class="tag">{run.source}</span> · started {when(run.startedAt ?? run.createdAt)}
          {run.completedAt && run.startedAt ? ` · took ${duration(run.completedAt - run.startedAt)}` : ''}
          {run.notes ? ` · ${run.notes}` : ''}
        </p>
        <div class="actions">
          {running && <CancelButton path={`${base}/cancel`} />}
          {!running && run.regradeOf && (
            <a class="button" href={href(paths.compare, { projectId, runId }, { base: run.regradeOf })}>
              Compare with the re-graded run
            </a>
          )}
          {!running && (
            <a class="button" href={href(paths.compare, { projectId, runId })}>
              Compare with the previous run
            </a>
          )}
          {!running && (summary?.models?.length ?? 0) > 1 && (
            <a class="button" href={href(paths.models, { projectId, runId })}>
              Choose a model
            </a>
          )}
          {!running && run.source !== 'sdk' && <RegradeButton path={`${base}/regrade`} projectId={projectId} />}
        </div>
      </header>
      {run.regradeOf && <RegradeOrigin projectId={projectId} run={run} />}
      {run.error && <p class="error">The run failed: {run.error}</p>}
      {live.reconnectingIn !== null && (
        <p class="notice" role="status">
          The connection dropped; reconnecting in {Math.ceil(live.reconnectingIn / 1000)} s…
        </p>
      )}
      {failure && <ErrorMessage error={failure} action="Could not keep following this run" />}
      <Progress run={run} />
      {summary && !running && <SummaryFigures summary={summary} />}
      {summary && !running && (
        <section aria-labelledby="cases-heading">
          <h2 id="cases-heading">Cases</h2>
          <CaseTable summary={summary} iterations={iterations} />
        </section>
      )}
      {summary?.adaptive && !running && <AdaptiveCases projectId={projectId} adaptive={summary.adaptive} />}
      {!running && (
        <section aria-labelledby="tools-heading">
          <h2 id="tools-heading">Tool analysis</h2>
          {tools.data && <ToolAnalysisView analysis={tools.data} />}
          {tools.error && <ErrorMessage error={tools.error} action="Could not load the tool analysis" />}
          {tools.loading && <p role="status">Loading the tool analysis…</p>}
        </section>
      )}
      <section aria-labelledby="iterations-heading">
        <h2 id="iterations-heading">Iterations</h2>
        <IterationList projectId={projectId} runId={runId} iterations={iterations} />
      </section>
    </article>
  );
}

interface LiveRun {
  run?: EvalRun;
  iterations: EvalIteration[];
  ended: boolean;
  failure?: ApiError;
  reconnectingIn: number | null;
}

/** The run as its events stream tells it: the latest run object and every finished iteration, in arrival order. */
function useRunEvents(projectId: string, runId: string): LiveRun {
  const [state, setState] = useState<LiveRun>({ iterations: [], ended: false, reconnectingIn: null });
  useEffect(() => {
    setState({ iterations: [], ended: false, reconnectingIn: null });
    const seen = new Set<string>();
    return followRun(projectId, runId, {
      onRun: (run) => setState((s) => ({ ...s, run, reconnectingIn: null })),
      onIteration: (iteration) => {
        if (seen.has(iteration.id)) return;
        seen.add(iteration.id);
        setState((s) => ({ ...s, iterations: [...s.iterations, iteration], reconnectingIn: null }));
      },
      onEnd: (run) => setState((s) => ({ ...s, run, ended: true, reconnectingIn: null })),
      onFailure: (failure) => setState((s) => ({ ...s, failure, reconnectingIn: null })),
      onReconnecting: (delayMs) => setState((s) => ({ ...s, reconnectingIn: delayMs })),
    });
  }, [projectId, runId]);
  return state;
}

function Progress({ run }: { run: EvalRun }) {
  const { total, completed, passed, failed, errored } = run.progress;
  return (
    <section class="progress" aria-labelledby="progress-heading">
      <h2 id="progress-heading" class="visually-hidden">
        Progress
      </h2>
      <label for="run-progress">
        {completed} of {total} iterations finished
      </label>
      <progress id="run-progress" max={Math.max(total, 1)} value={completed}>
        {completed} of {total}
      </progress>
      <dl class="counters">
        <div>
          <dt>Passed</dt>
          <dd data-counter="passed">{passed}</dd>
        </div>
        <div>
          <dt>Failed</dt>
          <dd data-counter="failed">{failed}</dd>
        </div>
        <div>
          <dt>Errored</dt>
          <dd data-counter="errored">{errored}</dd>
        </div>
        <div>
          <dt>Left</dt>
          <dd data-counter="left">{Math.max(total - completed, 0)}</dd>
        </div>
      </dl>
    </section>
  );
}

function SummaryFigures({ summary }: { summary: EvalRun['summary'] & Partial<RunStatistics> }) {
  if (!summary) return null;
  return (
    <section aria-labelledby="summary-heading">
      <h2 id="summary-heading">Summary</h2>
      <dl class="figures">
        <div>
          <dt>Pass rate</dt>
          <dd>
            {percent(summary.passRate)} ({summary.passed}/{summary.total})
          </dd>
        </div>
        <div>
          <dt>95% interval</dt>
          <dd>{interval(summary.passRateInterval)}</dd>
        </div>
        {summary.passAtK && (
          <div>
            <dt>pass@{summary.passAtK.k}</dt>
            <dd>{percent(summary.passAtK.value)}</dd>
          </div>
        )}
        {summary.passHatK && (
          <div>
            <dt>pass^{summary.passHatK.k}</dt>
            <dd>{percent(summary.passHatK.value)}</dd>
          </div>
        )}
        <div>
          <dt>Tokens</dt>
          <dd>{count(summary.tokens?.total)}</dd>
        </div>
        {summary.costUsd !== undefined && (
          <div>
            <dt>Cost</dt>
            <dd>{usd(summary.costUsd)}</dd>
          </div>
        )}
        <div>
          <dt>Latency p50 / p95</dt>
          <dd>
            {duration(summary.latencyMs?.p50)} / {duration(summary.latencyMs?.p95)}
          </dd>
        </div>
        {summary.stoppedBy === 'budget' && (
          <div>
            <dt>Stopped</dt>
            <dd>its budget was spent</dd>
          </div>
        )}
      </dl>
    </section>
  );
}

/** Why an adaptive run's case stopped, in words. */
export const stopReasonText: Record<
  NonNullable<NonNullable<EvalRun['summary']>['adaptive']>['cases'][number]['stopReason'],
  string
> = {
  decided_regressed: 'decided: regressed',
  decided_fixed: 'decided: fixed',
  decided_unchanged: 'decided: unchanged',
  budget: 'undecided at the most iterations per case',
  no_baseline: 'not in the baseline',
  undecided: 'the run ended first',
};

/** An adaptive run's cases: iterations spent and why each stopped, against the baseline run. */
function AdaptiveCases({
  projectId,
  adaptive,
}: {
  projectId: string;
  adaptive: NonNullable<NonNullable<EvalRun['summary']>['adaptive']>;
}) {
  const spent = adaptive.cases.reduce((sum, c) => sum + c.iterations, 0);
  return (
    <section aria-labelledby="adaptive-heading">
      <h2 id="adaptive-heading">Adaptive iterations</h2>
      <p>
        Against <a href={href(paths.run, { projectId, runId: adaptive.baselineRunId })}>the baseline run</a>: {spent} of{' '}
        {adaptive.maxIterationsPerCase * adaptive.cases.length} iterations spent (at most{' '}
        {adaptive.maxIterationsPerCase} per case; false decisions at most {percent(adaptive.alpha)} per case).
      </p>
      <table class="adaptive">
        <thead>
          <tr>
            <th scope="col">Case</th>
            <th scope="col">Iterations</th>
            <th scope="col">Stopped</th>
            <th scope="col">p (level)</th>
          </tr>
        </thead>
        <tbody>
          {adaptive.cases.map((c) => (
            <tr key={c.caseId}>
              <td>{c.title}</td>
              <td>{c.iterations}</td>
              <td>{stopReasonText[c.stopReason]}</td>
              <td>{c.pValue === null ? '—' : `${c.pValue.toPrecision(3)} (${(c.level ?? 0).toPrecision(2)})`}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function StatusBadge({ status, result }: { status: EvalRun['status']; result: EvalRun['result'] }) {
  const word = status === 'completed' && result ? result : status;
  return <span class={`badge badge-${word}`}>{word}</span>;
}

/** What a re-grade run graded again, and the cases it left out. */
function RegradeOrigin({ projectId, run }: { projectId: string; run: EvalRun }) {
  const skipped = run.regradeSkipped ?? [];
  const reasons = { CASE_DELETED: 'deleted since', PROMPTS_CHANGED: 'its prompt changed' } as const;
  return (
    <section class="notice regrade-origin" aria-label="Re-grade">
      <p>
        A re-grade of <a href={href(paths.run, { projectId, runId: run.regradeOf! })}>run {run.regradeOf}</a>: its
        recorded conversations graded again with the suite's current expectations, without calling its models or
        servers. A difference from that run is a change in the expectations, not in the model or server.
      </p>
      {skipped.length > 0 && (
        <p>
          Not re-graded:{' '}
          {skipped.map((c, i) => (
            <span key={c.caseId ?? c.title}>
              {i > 0 && ', '}
              {c.title} ({reasons[c.reason]})
            </span>
          ))}
        </p>
      )}
    </section>
  );
}

/** Starts a re-grade of this finished run and opens it. */
function RegradeButton({ path, projectId }: { path: string; projectId: string }) {
  const [state, setState] = useState<'idle' | 'starting'>('idle');
  const [error, setError] = useState<Error>();
  const regrade = async () => {
    setState('starting');
    setError(undefined);
    try {
      const created = await api<{ runId: string }>(path, { method: 'POST' });
      navigate(href(paths.run, { projectId, runId: created.runId }));
    } catch (e) {
      setError(e as Error);
    }
    setState('idle');
  };
  return (
    <>
      <button
        type="button"
        disabled={state !== 'idle'}
        title="Grade the recorded conversations again with the suite's current expectations (no model or server is called)"
        onClick={() => void regrade()}
      >
        {state === 'idle' ? 'Re-grade' : 'Starting the re-grade…'}
      </button>
      {error && (
        <span role="alert" class="error">
          {error.message}
        </span>
      )}
    </>
  );
}

function CancelButton({ path }: { path: string }) {
  const [state, setState] = useState<'idle' | 'cancelling' | 'asked'>('idle');
  const [error, setError] = useState<Error>();
  const cancel = async () => {
    setState('cancelling');
    setError(undefined);
    try {
      await api(path, { method: 'POST' });
      setState('asked');
    } catch (e) {
      setError(e as Error);
      setState('idle');
    }
  };
  return (
    <>
      <button type="button" class="danger" disabled={state !== 'idle'} onClick={() => void cancel()}>
        {state === 'idle' ? 'Cancel the run' : state === 'cancelling' ? 'Cancelling…' : 'Cancel asked'}
      </button>
      {error && (
        <span role="alert" class="error">
          {error instanceof ApiError && error.status === 409 ? 'The run already ended.' : error.message}
        </span>
      )}
    </>
  );
}
