import { useEffect } from 'preact/hooks';
import { TrendChart } from '../components/charts';
import { ErrorMessage, Loading } from '../components/feedback';
import { every, percent, when } from '../format';
import { useApi, useLiveRuns, useTitle } from '../hooks';
import { chooseProject, chosenProject } from '../project';
import { href, navigate } from '../router';
import { paths, type ViewProps } from '../paths';
import { useStore } from '../store';
import type { EvalRun, Page, Project, SuiteListItem } from '../types';

/** `#/`: the key's projects, and the chosen project's suites with their latest run, trend, schedule and sources. */
export function SuitesView({ query }: ViewProps) {
  const chosen = useStore(chosenProject);
  const projects = useApi<Page<Project>>('/projects');
  const items = projects.data?.items ?? [];
  const projectId =
    query.get('project') ?? (items.some((p) => p.id === chosen) ? chosen : null) ?? items[0]?.id ?? null;
  const project = items.find((p) => p.id === projectId);
  const suites = useApi<Page<SuiteListItem>>(
    projectId ? `/projects/${encodeURIComponent(projectId)}/eval-suites` : null,
  );
  const source = query.get('source') ?? '';
  useTitle(project ? `Suites of ${project.name}` : 'Suites');
  // The latest runs shown running, live; one that ends reads the list again (the suite's totals and trend).
  const running = (suites.data?.items ?? []).flatMap((s) =>
    s.latestRun?.status === 'running' ? [s.latestRun.id] : [],
  );
  const live = useLiveRuns(projectId, running, suites.reload);
  useEffect(() => {
    if (projectId) chooseProject(projectId);
  }, [projectId]);

  if (projects.error) return <ErrorMessage error={projects.error} action="Could not list the projects" />;
  if (projects.loading) return <Loading what="Loading the projects" />;
  if (items.length === 0) return <p>This key can see no project.</p>;

  const all = suites.data?.items ?? [];
  const sources = [...new Set(all.flatMap((s) => s.sources))].sort();
  const shown = source ? all.filter((s) => s.sources.includes(source)) : all;
  const to = (next: { project?: string; source?: string }) =>
    href(paths.suites, {}, { project: next.project ?? projectId, source: 'source' in next ? next.source : source });

  return (
    <section>
      <h1>Suites{project ? <span class="muted"> · {project.name}</span> : null}</h1>
      {items.length > 1 ? (
        <nav aria-label="Projects">
          <ul class="project-list">
            {items.map((p) => (
              <li key={p.id}>
                <a href={to({ project: p.id, source: '' })} aria-current={p.id === projectId ? 'true' : undefined}>
                  {p.name}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
      <div class="actions">
        <label for="source-filter">Source</label>
        <select
          id="source-filter"
          value={source}
          onChange={(e) => navigate(to({ source: (e.currentTarget as HTMLSelectElement).value }))}
        >
          <option value="">All sources</option>
          {[...new Set([...sources, ...(source ? [source] : [])])].map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <span class="muted" aria-live="polite">
          {suites.data ? `${shown.length} of ${all.length} suite${all.length === 1 ? '' : 's'}` : ''}
        </span>
      </div>
      {suites.error ? <ErrorMessage error={suites.error} action="Could not list the suites" /> : null}
      <ErrorMessage error={live.failure} action="Could not follow the running runs" />
      {suites.loading ? <Loading what="Loading the suites" /> : null}
      {suites.data && all.length === 0 ? (
        <p>
          No suite in this project yet. Create one through the API (
          <code>POST /api/v1/projects/{projectId}/eval-suites</code>) or with <code>npm run -s runway -- eval run</code>
          .
        </p>
      ) : null}
      {suites.data && all.length > 0 && shown.length === 0 ? <p>No suite has runs from the source {source}.</p> : null}
      <ul class="cards">
        {shown.map((suite) => (
          <SuiteCard
            key={suite.id}
            suite={suite}
            projectId={projectId!}
            live={suite.latestRun ? live.runs.get(suite.latestRun.id) : undefined}
          />
        ))}
      </ul>
    </section>
  );
}

/** The suite's latest run as the list gives it, or as its events stream tells it now (`live`). */
function SuiteCard({ suite, projectId, live }: { suite: SuiteListItem; projectId: string; live?: EvalRun }) {
  const latest = live ? latestRunOf(live) : suite.latestRun;
  // A running run's result is "pending": its status says more.
  const word = latest ? (latest.status === 'running' ? latest.status : (latest.result ?? latest.status)) : '';
  const trend = suite.passRateTrend.map((passRate, i, all) => ({
    label: i === all.length - 1 ? 'latest' : `${i - all.length + 1}`,
    passRate,
  }));
  return (
    <li class="card">
      <h2>
        <a href={href(paths.suite, { projectId, suiteId: suite.id })}>{suite.name}</a>
      </h2>
      {suite.description ? <p class="muted">{suite.description}</p> : null}
      <dl class="facts">
        <dt>Latest run</dt>
        <dd>
          {latest ? (
            <>
              <a href={href(paths.run, { projectId, runId: latest.id })}>
                <span class={`status ${word}`}>{word}</span>
              </a>{' '}
              {latest.status !== 'running'
                ? `${percent(latest.passRate)} (${latest.passed} passed, ${latest.failed} failed, ${latest.errored} errored) `
                : live
                  ? `(${live.progress.completed}/${live.progress.total}) `
                  : ''}
              · {when(latest.createdAt)}
            </>
          ) : (
            'never run'
          )}
        </dd>
        <dt>Runs</dt>
        <dd>
          {suite.totals.runs} ({suite.totals.passed} passed, {suite.totals.failed} failed)
        </dd>
        <dt>Schedule</dt>
        <dd>{scheduleText(suite.schedule)}</dd>
        <dt>Sources</dt>
        <dd>
          {suite.sources.length > 0 ? (
            <ul class="tags" aria-label="Sources">
              {suite.sources.map((s) => (
                <li key={s} class="tag">
                  {s}
                </li>
              ))}
            </ul>
          ) : (
            <span class="muted">none yet</span>
          )}
        </dd>
      </dl>
      <TrendChart points={trend} height={120} label={`Pass rate of ${suite.name}`} />
    </li>
  );
}

/** A run as the list shows a suite's latest (GET /eval-suites maps it the same way). */
function latestRunOf(run: EvalRun): NonNullable<SuiteListItem['latestRun']> {
  return {
    id: run.id,
    status: run.status,
    result: run.result,
    passRate: run.summary?.passRate ?? null,
    passed: run.summary?.passed ?? 0,
    errored: run.summary?.errored ?? 0,
    failed: run.summary?.failed ?? 0,
    createdAt: run.createdAt,
  };
}

function scheduleText(schedule: SuiteListItem['schedule']): string {
  if (!schedule) return 'none';
  const next = schedule.enabled && schedule.nextRunAt ? `, next ${when(schedule.nextRunAt)}` : '';
  return schedule.enabled ? `${every(schedule.intervalMinutes)}${next}` : `paused (${every(schedule.intervalMinutes)})`;
}
