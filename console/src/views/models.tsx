import './runs.css';
import type { z } from 'zod';
import type { modelComparisonSchema } from '../../../api/schemas/compare';
import { count, points } from '../components/figures';
import { ErrorMessage, Loading } from '../components/feedback';
import { duration, percent, usd } from '../format';
import { useApi } from '../hooks';
import { href, navigate } from '../router';
import { paths } from '../paths';

type ModelComparison = z.infer<typeof modelComparisonSchema>;
type Choice = NonNullable<ModelComparison['choices']>[number];

/** The margins offered, in rates: 2, 5 and 10 points. */
const MARGINS = [0.02, 0.05, 0.1];
const DEFAULT_MARGIN = 0.05;

const VERDICT_WORDS: Record<Choice['verdict'], string> = {
  baseline: 'the base model',
  non_inferior: 'no worse than the base by more than the margin',
  inferior: 'worse than the base by more than the margin',
  inconclusive: 'inconclusive — more iterations would tell',
};

/**
 * The models of one run against one of them (GET .../compare?by=model&margin=): is each no worse than the base by
 * more than the margin, next to its latency and tokens, and which is the cheapest that is.
 */
export function ModelsView({ params, query }: { params: Record<string, string>; query: URLSearchParams }) {
  const { projectId, runId } = params;
  const margin = Number(query.get('margin') ?? DEFAULT_MARGIN);
  const baseModel = query.get('baseModel');
  const search = new URLSearchParams({ by: 'model', margin: String(margin), ...(baseModel ? { baseModel } : {}) });
  const comparison = useApi<ModelComparison>(
    `/projects/${encodeURIComponent(projectId)}/eval-runs/${encodeURIComponent(runId)}/compare?${search}`,
  );
  const go = (next: { margin?: number; baseModel?: string }) =>
    navigate(
      href(
        paths.models,
        { projectId, runId },
        {
          margin: String(next.margin ?? margin),
          ...((next.baseModel ?? baseModel) ? { baseModel: next.baseModel ?? baseModel! } : {}),
        },
      ),
    );
  const crumbs = (
    <nav class="crumbs" aria-label="Breadcrumbs">
      <a href={href(paths.suites)}>Projects</a> › <a href={href(paths.run, { projectId, runId })}>Run</a> › Models
    </nav>
  );
  if (comparison.error)
    return (
      <article class="models-view">
        {crumbs}
        <h1>Choose a model</h1>
        <ErrorMessage error={comparison.error} action="Could not compare the models of this run" />
      </article>
    );
  if (!comparison.data) return <Loading what="Comparing the models" />;
  const c = comparison.data;
  const choices = c.choices ?? [];
  const byModel = new Map(c.comparisons.map((x) => [x.current.model ?? null, x.nonInferiority]));
  return (
    <article class="models-view">
      {crumbs}
      <header class="view-header">
        <h1>Choose a model</h1>
        <p class="base-picker">
          <label for="base-model">Against</label>{' '}
          <select
            id="base-model"
            value={c.baseModel ?? ''}
            onChange={(e) => go({ baseModel: (e.currentTarget as HTMLSelectElement).value })}
          >
            {c.models.map((m) => (
              <option key={m ?? ''} value={m ?? ''}>
                {m ?? '(no model)'}
              </option>
            ))}
          </select>{' '}
          <label for="margin">with a margin of</label>{' '}
          <select
            id="margin"
            value={String(margin)}
            onChange={(e) => go({ margin: Number((e.currentTarget as HTMLSelectElement).value) })}
          >
            {[...new Set([...MARGINS, margin])].map((m) => (
              <option key={m} value={String(m)}>
                {(m * 100).toFixed(0)} points
              </option>
            ))}
          </select>
        </p>
      </header>
      <section class="verdict" aria-labelledby="pick-heading">
        <h2 id="pick-heading">{c.cheapestNonInferior ? `Pick ${c.cheapestNonInferior}` : 'No model to pick yet'}</h2>
        <p>
          The model with the fewest tokens per iteration among {c.baseModel ?? 'the base model'} and the models that are
          no worse than it by more than {(margin * 100).toFixed(0)} points (the 95% interval of the difference lies
          above −{(margin * 100).toFixed(0)} points).
        </p>
      </section>
      {choices.length < 2 ? (
        <p>This run used one model: there is nothing to compare it with.</p>
      ) : (
        <div class="table-wrap">
          <table class="model-choices">
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Pass rate</th>
                <th scope="col">Difference (95% interval)</th>
                <th scope="col">Verdict</th>
                <th scope="col">Latency p50</th>
                <th scope="col">Tokens per iteration</th>
                <th scope="col">Cost</th>
              </tr>
            </thead>
            <tbody>
              {choices.map((choice) => {
                const ni = byModel.get(choice.model)?.overall;
                return (
                  <tr key={choice.model ?? ''} class={`choice-${choice.verdict}`}>
                    <th scope="row">{choice.model ?? '(no model)'}</th>
                    <td>
                      {percent(choice.passRate)} ({choice.passed}/{choice.total})
                    </td>
                    <td>
                      {ni
                        ? `${points(ni.difference)} (${points(ni.differenceInterval.low)} to ${points(ni.differenceInterval.high)})`
                        : '–'}
                    </td>
                    <td>
                      <span class={`badge badge-${choice.verdict}`}>{choice.verdict.replaceAll('_', '-')}</span>{' '}
                      <small>{VERDICT_WORDS[choice.verdict]}</small>
                    </td>
                    <td>{duration(choice.latencyMs.p50)}</td>
                    <td>{choice.total === 0 ? '–' : count(Math.round(choice.tokens.total / choice.total))}</td>
                    <td>{usd(choice.costUsd)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </article>
  );
}
