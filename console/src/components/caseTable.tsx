import type { CaseStatistics, RunStatistics } from '../../../domain/evals/statistics';
// The same Wilson interval and percentile as the run's summary: a pure module without imports, bundled as is.
// eslint-disable-next-line @typescript-eslint/no-restricted-imports
import { percentile, wilsonInterval } from '../../../domain/evals/statistics';
import type { EvalIteration } from '../runEvents';
import type { EvalRun } from '../types';
import { duration, interval, percent, usd } from '../format';
import { count } from './figures';

type Summary = NonNullable<EvalRun['summary']> & Partial<RunStatistics>;

/** The key the run's statistics name a case by: its id, else (an ingested result without one) its title. */
const caseKey = (iteration: EvalIteration) => iteration.testCaseId ?? iteration.title;
const modelKey = (model: string | null | undefined) => model ?? '';

interface CaseFigures {
  title: string;
  tokens: number;
  p50: number | null;
  p95: number | null;
}

/** Tokens and latency per case (and model) from the iterations: the summary keeps them for the run only. */
function figuresByCase(iterations: EvalIteration[]): Map<string, CaseFigures> {
  const groups = new Map<string, { title: string; tokens: number; durations: number[] }>();
  for (const it of iterations) {
    if (it.status !== 'completed' && it.status !== 'failed') continue;
    const key = `${caseKey(it)}\u0000${modelKey(it.model)}`;
    const group = groups.get(key) ?? { title: it.title, tokens: 0, durations: [] };
    group.tokens += it.tokensUsed;
    if (it.durationMs !== null) group.durations.push(it.durationMs);
    groups.set(key, group);
  }
  const figures = new Map<string, CaseFigures>();
  for (const [key, g] of groups)
    figures.set(key, {
      title: g.title,
      tokens: g.tokens,
      p50: percentile(g.durations, 50),
      p95: percentile(g.durations, 95),
    });
  return figures;
}

function titleOf(caseId: string, iterations: EvalIteration[]): string {
  return iterations.find((it) => caseKey(it) === caseId)?.title ?? caseId;
}

/**
 * The run's cases: pass rate with its 95% Wilson interval, pass@k, pass^k, tokens and latency. A run of several
 * models gets a column group per model, so one row compares the models on one case.
 */
export function CaseTable({ summary, iterations }: { summary: Summary; iterations: EvalIteration[] }) {
  const cases = (summary.cases ?? []) as CaseStatistics[];
  const models = summary.models ?? [];
  const figures = figuresByCase(iterations);
  const k = summary.passAtK?.k ?? summary.passHatK?.k;
  const caseIds = [...new Set(cases.map((c) => c.caseId))];
  if (caseIds.length === 0) return <p>No case finished.</p>;

  if (models.length > 1) return <ModelColumns summary={summary} cases={cases} iterations={iterations} />;
  return (
    <div class="table-wrap">
      <table class="cases">
        <thead>
          <tr>
            <th scope="col">Case</th>
            <th scope="col">Passed</th>
            <th scope="col">Pass rate</th>
            <th scope="col">95% interval</th>
            <th scope="col">pass@{k ?? 'k'}</th>
            <th scope="col">pass^{k ?? 'k'}</th>
            <th scope="col">Tokens</th>
            <th scope="col">Cost</th>
            <th scope="col">Latency p50</th>
            <th scope="col">Latency p95</th>
          </tr>
        </thead>
        <tbody>
          {cases.map((c) => {
            const f = figures.get(`${c.caseId}\u0000${modelKey(c.model)}`);
            return (
              <tr key={`${c.caseId}/${c.model ?? ''}`} class={c.passed < c.total ? 'failed' : undefined}>
                <th scope="row">{f?.title ?? titleOf(c.caseId, iterations)}</th>
                <td>
                  {c.passed}/{c.total}
                </td>
                <td>{percent(c.passRate)}</td>
                <td>{interval(wilsonInterval(c.passed, c.total))}</td>
                <td>{percent(c.passAtK)}</td>
                <td>{percent(c.passHatK)}</td>
                <td>{count(f?.tokens)}</td>
                <td>{usd(c.costUsd)}</td>
                <td>{duration(f?.p50)}</td>
                <td>{duration(f?.p95)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function ModelColumns({
  summary,
  cases,
  iterations,
}: {
  summary: Summary;
  cases: CaseStatistics[];
  iterations: EvalIteration[];
}) {
  const models = summary.models ?? [];
  const caseIds = [...new Set(cases.map((c) => c.caseId))];
  const cell = (caseId: string, model: string | null) =>
    cases.find((c) => c.caseId === caseId && modelKey(c.model) === modelKey(model));
  return (
    <>
      <div class="table-wrap">
        <table class="models">
          <caption>Models</caption>
          <thead>
            <tr>
              <th scope="col">Model</th>
              <th scope="col">Passed</th>
              <th scope="col">Pass rate</th>
              <th scope="col">95% interval</th>
              <th scope="col">Tokens</th>
              <th scope="col">Cost</th>
              <th scope="col">Latency p50</th>
              <th scope="col">Latency p95</th>
            </tr>
          </thead>
          <tbody>
            {models.map((m) => (
              <tr key={`${m.provider ?? ''}/${m.model ?? ''}`}>
                <th scope="row">{m.model ?? 'default'}</th>
                <td>
                  {m.passed}/{m.total}
                </td>
                <td>{percent(m.passRate)}</td>
                <td>{interval(m.wilson95)}</td>
                <td>{count(m.tokens.total)}</td>
                <td>{usd(m.costUsd)}</td>
                <td>{duration(m.latency.p50)}</td>
                <td>{duration(m.latency.p95)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div class="table-wrap">
        <table class="cases">
          <caption>Pass rate per case and model (95% interval; pass@k / pass^k)</caption>
          <thead>
            <tr>
              <th scope="col">Case</th>
              {models.map((m) => (
                <th scope="col" key={m.model ?? ''}>
                  {m.model ?? 'default'}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {caseIds.map((caseId) => (
              <tr key={caseId}>
                <th scope="row">{titleOf(caseId, iterations)}</th>
                {models.map((m) => {
                  const c = cell(caseId, m.model);
                  return (
                    <td key={m.model ?? ''} class={c && c.passed < c.total ? 'failed' : undefined}>
                      {c ? (
                        <>
                          {c.passed}/{c.total} · {percent(c.passRate)}{' '}
                          <small>
                            ({interval(wilsonInterval(c.passed, c.total))}; {percent(c.passAtK)} / {percent(c.passHatK)}
                            )
                          </small>
                        </>
                      ) : (
                        '–'
                      )}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
