import { duration, interval, percent, usd, when } from '../format';
import { href } from '../router';
import { paths } from '../paths';
import type { EvalRun, RunStatistics } from '../types';

/** A run's statistics beyond the declared summary (the 95% interval), when it has them. */
export function runStatistics(run: EvalRun): RunStatistics {
  return (run.summary ?? {}) as RunStatistics;
}

/** How long a run took (or has been running). */
export function runDuration(run: EvalRun, now = Date.now()): number | null {
  if (run.startedAt === null) return null;
  return (run.completedAt ?? (run.status === 'running' ? now : null) ?? run.startedAt) - run.startedAt;
}

/** The models a run ran with, from its summary (finished runs). */
export function runModels(run: EvalRun): string {
  const models = run.summary?.models?.map((m) => m.model).filter((m): m is string => Boolean(m)) ?? [];
  return models.length > 0 ? [...new Set(models)].join(', ') : '–';
}

/** A suite's runs, newest first: each links to its run view. */
export function RunsTable({ runs, projectId, caption }: { runs: EvalRun[]; projectId: string; caption: string }) {
  if (runs.length === 0) return <p class="muted">No runs yet.</p>;
  return (
    <div class="table-wrap">
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Run</th>
            <th scope="col">Status</th>
            <th scope="col">Result</th>
            <th scope="col" class="num">
              Pass rate
            </th>
            <th scope="col">95% interval</th>
            <th scope="col">Models</th>
            <th scope="col">Source</th>
            <th scope="col" class="num">
              Duration
            </th>
            <th scope="col" class="num">
              Cost
            </th>
            <th scope="col">Notes</th>
            <th scope="col">Started</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => {
            const stats = runStatistics(run);
            const rate =
              run.summary?.passRate ??
              (run.progress.completed > 0 ? run.progress.passed / run.progress.completed : null);
            return (
              <tr key={run.id}>
                <th scope="row">
                  <a href={href(paths.run, { projectId, runId: run.id })}>Run #{run.runNumber}</a>
                </th>
                <td>
                  <span class={`status ${run.status}`}>{run.status}</span>
                  {run.queue && <span class="muted"> (#{run.queue.position} in queue)</span>}
                  {run.status === 'running' ? (
                    <span class="muted">
                      {' '}
                      ({run.progress.completed}/{run.progress.total})
                    </span>
                  ) : null}
                </td>
                <td>{run.result ? <span class={`status ${run.result}`}>{run.result}</span> : '–'}</td>
                <td class="num">{percent(rate)}</td>
                <td>{interval(stats.passRateInterval)}</td>
                <td>{runModels(run)}</td>
                <td>
                  <span class="tag">{run.source}</span>
                </td>
                <td class="num">{duration(runDuration(run))}</td>
                <td class="num">{usd(run.summary?.costUsd)}</td>
                <td>{run.notes ?? ''}</td>
                <td>{when(run.startedAt ?? run.createdAt)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
