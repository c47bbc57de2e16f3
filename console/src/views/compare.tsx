import './runs.css';
import type { z } from 'zod';
import type { comparisonSchema } from '../../../api/schemas/compare';
import { ApiError } from '../api';
import { count, points, pValue, ratio } from '../components/figures';
import { ErrorMessage, Loading } from '../components/feedback';
import { duration, percent, usd } from '../format';
import { useApi } from '../hooks';
import { href, navigate } from '../router';
import { paths } from '../paths';
import { CaseDriftMark, DriftBanner } from '../components/driftBanner';
import type { EvalRun, Page } from '../types';

type Comparison = z.infer<typeof comparisonSchema>;
type CaseComparison = Comparison['cases'][number];

/** How many runs of the suite the base picker offers. */
const RUNS_OFFERED = 50;

/**
 * This run against a base run (default: the suite's previous completed one): the verdict, then the cases with
 * regressions first, each said plainly: a likely real change or noise, and how many iterations would tell.
 */
export function CompareView({ params, query }: { params: Record<string, string>; query: URLSearchParams }) {
  const { projectId, runId } = params;
  const baseRunId = query.get('base');
  const p = encodeURIComponent(projectId);
  const comparison = useApi<Comparison>(
    `/projects/${p}/eval-runs/${encodeURIComponent(runId)}/compare${baseRunId ? `?baseRunId=${encodeURIComponent(baseRunId)}` : ''}`,
  );
  const noBase = !baseRunId && comparison.error instanceof ApiError && comparison.error.status === 404;
  // The suite is named by the comparison; without one (a first run), by the run itself.
  const run = useApi<EvalRun>(noBase ? `/projects/${p}/eval-runs/${encodeURIComponent(runId)}` : null);
  const suiteId = comparison.data?.current.suiteId ?? run.data?.suiteId ?? null;
  const runs = useApi<Page<EvalRun>>(
    suiteId ? `/projects/${p}/eval-suites/${encodeURIComponent(suiteId)}/runs?limit=${RUNS_OFFERED}` : null,
  );

  const crumbs = (
    <nav class="crumbs" aria-label="Breadcrumbs">
      <a href={href(paths.suites)}>Projects</a> ›{' '}
      {suiteId && (
        <>
          <a href={href(paths.suite, { projectId, suiteId })}>Suite</a> ›{' '}
        </>
      )}
      <a href={href(paths.run, { projectId, runId })}>Run</a> › Compare
    </nav>
  );
  const picker = (
    <BasePicker
      runs={(runs.data?.items ?? []).filter((r) => r.id !== runId)}
      selected={comparison.data?.base.runId ?? baseRunId ?? ''}
      onPick={(id) => {
        navigate(href(paths.compare, { projectId, runId }, { base: id }));
      }}
    />
  );
  if (comparison.error)
    return (
      <article class="compare-view">
        {crumbs}
        <h1>Compare runs</h1>
        {noBase && !run.error ? (
          <p>This is the suite's first completed run: there is no previous run to compare with. Pick one below.</p>
        ) : (
          <ErrorMessage error={comparison.error} action="Could not compare these runs" />
        )}
        {picker}
      </article>
    );
  if (!comparison.data) return <Loading what="Loading the comparison" />;
  const c = comparison.data;
  return (
    <article class="compare-view">
      {crumbs}
      <header class="view-header">
        <h1>
          Run #{c.current.runNumber} against run #{c.base.runNumber}
        </h1>
        {picker}
      </header>
      <Verdict comparison={c} />
      <DriftBanner drift={c.drift} />
      <section aria-labelledby="compare-cases-heading">
        <h2 id="compare-cases-heading">Cases</h2>
        <CaseRows cases={c.cases} base={c.base.runNumber} current={c.current.runNumber} />
      </section>
      <section aria-labelledby="compare-tools-heading">
        <h2 id="compare-tools-heading">Tools</h2>
        <ToolRows comparison={c} />
      </section>
      <section aria-labelledby="compare-performance-heading">
        <h2 id="compare-performance-heading">Performance</h2>
        <Performance comparison={c} />
      </section>
    </article>
  );
}

function BasePicker({
  runs,
  selected,
  onPick,
}: {
  runs: EvalRun[];
  selected: string;
  onPick: (runId: string) => void;
}) {
  if (runs.length === 0) return null;
  return (
    <p class="base-picker">
      <label for="base-run">Compare against</label>{' '}
      <select id="base-run" value={selected} onChange={(e) => onPick((e.currentTarget as HTMLSelectElement).value)}>
        {!runs.some((r) => r.id === selected) && <option value={selected}>choose a run</option>}
        {runs.map((r) => (
          <option key={r.id} value={r.id}>
            Run #{r.runNumber} · {r.status}
            {r.summary ? ` · ${percent(r.summary.passRate)}` : ''} · {new Date(r.createdAt).toLocaleDateString()}
          </option>
        ))}
      </select>
    </p>
  );
}

const VERDICT_WORDS: Record<Comparison['suite']['verdict'], string> = {
  regressed: 'Likely a real regression',
  improved: 'Likely a real improvement',
  no_significant_change: 'No significant change',
};

function Verdict({ comparison: c }: { comparison: Comparison }) {
  const s = c.suite;
  return (
    <section class={`verdict verdict-${s.verdict}`} aria-labelledby="verdict-heading">
      <h2 id="verdict-heading">{VERDICT_WORDS[s.verdict]}</h2>
      <p id="verdict-reason">{s.verdictReason[0].toUpperCase() + s.verdictReason.slice(1)}.</p>
      <p>
        Pass rate {percent(s.base.passRate)} ({s.base.passed}/{s.base.total}) → {percent(s.current.passRate)} (
        {s.current.passed}/{s.current.total}): {points(s.difference)}, 95% interval{' '}
        {signedInterval(s.differenceInterval)}.
      </p>
      <p class="pooled">
        <small>
          Matched cases pooled: {points(s.pooled.difference)}, p = {pValue(s.pooled.pValue)} (reported beside the
          verdict, never deciding it).
        </small>
      </p>
      {c.current.status === 'running' && <p class="notice">This run is still running: compared on what finished.</p>}
    </section>
  );
}

function signedInterval(range: { low: number; high: number } | null): string {
  return range ? `${points(range.low)} to ${points(range.high)}` : '–';
}

const STATUS_WORDS: Record<CaseComparison['status'], string> = {
  regressed: 'regressed',
  fixed: 'fixed',
  changed: 'changed',
  new_case: 'new case',
  removed_case: 'removed case',
  unchanged_passed: 'passed in both',
  unchanged_failed: 'failing in both',
};

/** The plain-words reading of a case's significance. */
export function significanceWords(c: CaseComparison): string {
  if (c.status === 'regressed') return 'likely a real regression';
  if (c.status === 'fixed') return 'likely a real improvement';
  if (c.status === 'changed')
    return c.iterationsNeeded !== null ? `within noise — run ${c.iterationsNeeded} iterations to tell` : 'within noise';
  if (c.status === 'new_case') return 'only in this run';
  if (c.status === 'removed_case') return 'only in the base run';
  return 'no change';
}

function CaseRows({ cases, base, current }: { cases: CaseComparison[]; base: number; current: number }) {
  if (cases.length === 0) return <p>No cases to compare.</p>;
  const side = (s: CaseComparison['base']) => (s ? `${s.passed}/${s.total} (${percent(s.passRate)})` : '–');
  return (
    <div class="table-wrap">
      <table class="compare-cases">
        <thead>
          <tr>
            <th scope="col">Case</th>
            <th scope="col">Status</th>
            <th scope="col">Run #{base}</th>
            <th scope="col">Run #{current}</th>
            <th scope="col">Difference (95% interval)</th>
            <th scope="col">p (adjusted)</th>
            <th scope="col">Reading</th>
          </tr>
        </thead>
        <tbody>
          {cases.map((c, i) => (
            <tr key={c.caseId ?? `${c.title}/${i}`} class={`case-${c.status}`}>
              <th scope="row">
                {c.title} <CaseDriftMark tools={c.toolDrift} />
              </th>
              <td>
                <span class={`badge badge-${c.status}`}>{STATUS_WORDS[c.status]}</span>
              </td>
              <td>{side(c.base)}</td>
              <td>{side(c.current)}</td>
              <td>
                {points(c.difference)} {c.differenceInterval && <small>({signedInterval(c.differenceInterval)})</small>}
              </td>
              <td>{pValue(c.adjustedPValue)}</td>
              <td class="reading">{significanceWords(c)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ToolRows({ comparison: c }: { comparison: Comparison }) {
  return (
    <>
      {c.tools.length === 0 ? (
        <p>No tool was expected or called.</p>
      ) : (
        <div class="table-wrap">
          <table class="compare-tools">
            <thead>
              <tr>
                <th scope="col">Tool</th>
                <th scope="col">Precision</th>
                <th scope="col">Recall</th>
                <th scope="col">F1 (base → current)</th>
                <th scope="col">F1 difference</th>
              </tr>
            </thead>
            <tbody>
              {c.tools.map((t) => (
                <tr key={t.toolName}>
                  <th scope="row">
                    <code>{t.toolName}</code>
                  </th>
                  <td>
                    {ratio(t.base.precision)} → {ratio(t.current.precision)}
                  </td>
                  <td>
                    {ratio(t.base.recall)} → {ratio(t.current.recall)}
                  </td>
                  <td>
                    {ratio(t.base.f1)} → {ratio(t.current.f1)}
                  </td>
                  <td>{t.f1Difference === null ? '–' : t.f1Difference.toFixed(3)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <dl class="figures">
        <div>
          <dt>Expected, never called</dt>
          <dd>{c.coverage.expectedNeverCalled.join(', ') || 'none'}</dd>
        </div>
        <div>
          <dt>Called, never expected</dt>
          <dd>{c.coverage.calledNeverExpected.join(', ') || 'none'}</dd>
        </div>
        <div>
          <dt>Confusions in this run</dt>
          <dd>{c.confusions.current.map((x) => `${x.expected} → ${x.called} (${x.count})`).join(', ') || 'none'}</dd>
        </div>
      </dl>
    </>
  );
}

function Performance({ comparison: c }: { comparison: Comparison }) {
  const { base, current } = c.performance;
  return (
    <div class="table-wrap">
      <table class="compare-performance">
        <thead>
          <tr>
            <th scope="col">Run</th>
            <th scope="col">Iterations</th>
            <th scope="col">Latency p50</th>
            <th scope="col">Latency p95</th>
            <th scope="col">Tokens</th>
            <th scope="col">Cost</th>
          </tr>
        </thead>
        <tbody>
          {(
            [
              [`#${c.base.runNumber} (base)`, base],
              [`#${c.current.runNumber}`, current],
            ] as const
          ).map(([name, perf]) => (
            <tr key={name}>
              <th scope="row">{name}</th>
              <td>{count(perf.total)}</td>
              <td>{duration(perf.latencyMs.p50)}</td>
              <td>{duration(perf.latencyMs.p95)}</td>
              <td>{count(perf.tokens.total)}</td>
              <td>{usd(perf.costUsd)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
