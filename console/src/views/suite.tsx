import { useState } from 'preact/hooks';
import { api } from '../api';
import { CaseForm } from '../components/caseEditor';
import { Sparkline, TrendChart } from '../components/charts';
import { ErrorMessage, Loading } from '../components/feedback';
import { RunsTable, runStatistics } from '../components/runsTable';
import { ScheduleForm, scheduleSummary } from '../components/scheduleForm';
import { StartRun } from '../components/startRun';
import { SuiteEditor } from '../components/suiteEditor';
import { percent } from '../format';
import { useAction, useApi, useLiveRuns, useTitle } from '../hooks';
import { href } from '../router';
import { paths, type ViewProps } from '../paths';
import type { EvalCase, SuiteOverview } from '../types';

/** Runs the overview asks for: the table and the trend. */
const RUNS = 30;

/**
 * `#/projects/:projectId/suites/:suiteId`: the suite's runs (newest first), its pass-rate trend, its cases with their
 * history, and the forms that change it: edit the suite and its cases, start a run, set the schedule.
 */
export function SuiteView({ params }: ViewProps) {
  const { projectId, suiteId } = params;
  const overview = useOverview(projectId, suiteId);
  const [editing, setEditing] = useState(false);
  const [caseForm, setCaseForm] = useState<{ existing?: EvalCase } | null>(null);
  useTitle(overview.data?.suite.name ?? 'Suite');
  // The runs shown running, live; one that ends reads the overview again (its trend and the cases' history).
  const running = (overview.data?.runs ?? [])
    .filter((r) => r.status === 'running' || r.status === 'queued')
    .map((r) => r.id);
  const live = useLiveRuns(projectId, running, overview.reload);

  if (overview.error) return <ErrorMessage error={overview.error} action="Could not load the suite" />;
  if (!overview.data) return <Loading what="Loading the suite" />;
  const { suite } = overview.data;
  const runs = overview.data.runs.map((run) => live.runs.get(run.id) ?? run);
  const cases = overview.cases;
  const reload = overview.reload;
  const finished = runs.filter((r) => r.summary && r.status !== 'running' && r.status !== 'queued').reverse();
  const trend = finished.map((run) => {
    const range = runStatistics(run).passRateInterval;
    return { label: `#${run.runNumber}`, passRate: run.summary!.passRate, low: range?.low, high: range?.high };
  });
  const sources = [...new Set(runs.map((r) => r.source))].sort();
  const models = suite.models?.map((m) => m.model) ?? (suite.executionConfig ? [suite.executionConfig.model] : []);

  return (
    <section>
      <p>
        <a href={href(paths.suites, {}, { project: projectId })}>← Suites</a>
      </p>
      <h1>{suite.name}</h1>
      {suite.description ? <p class="muted">{suite.description}</p> : null}
      <dl class="facts">
        <dt>Models</dt>
        <dd>{models.length > 0 ? models.join(', ') : 'each case names its own'}</dd>
        <dt>Servers</dt>
        <dd>{suite.environment.servers.join(', ') || 'none saved'}</dd>
        <dt>Passes at</dt>
        <dd>{suite.passCriteria.minimumPassRate}% of iterations</dd>
        <dt>Isolation</dt>
        <dd>{suite.isolation}</dd>
        <dt>Schedule</dt>
        <dd>{scheduleSummary(suite.schedule)}</dd>
        <dt>Sources</dt>
        <dd>
          {sources.length > 0 ? (
            <ul class="tags" aria-label="Sources">
              {sources.map((s) => (
                <li key={s} class="tag">
                  {s}
                </li>
              ))}
            </ul>
          ) : (
            'none yet'
          )}
        </dd>
      </dl>
      <div class="actions">
        {!editing ? (
          <button type="button" onClick={() => setEditing(true)}>
            Edit the suite
          </button>
        ) : null}
        <button type="button" class="secondary" onClick={reload}>
          Reload
        </button>
      </div>
      {editing ? (
        <SuiteEditor
          suite={suite}
          onSaved={() => {
            setEditing(false);
            reload();
          }}
          onCancel={() => setEditing(false)}
        />
      ) : null}

      <StartRun projectId={projectId} suiteId={suiteId} onStarted={reload} />

      <h2>Pass-rate trend</h2>
      <TrendChart points={trend} label={`Pass rate of ${suite.name}`} />

      <h2>Runs</h2>
      <RunsTable runs={runs} projectId={projectId} caption={`The ${RUNS} newest runs, newest first`} />
      <ErrorMessage error={live.failure} action="Could not follow the running runs" />

      <h2>Cases</h2>
      <CasesTable
        projectId={projectId}
        suiteId={suiteId}
        cases={cases}
        onEdit={(existing) => setCaseForm({ existing })}
        onDeleted={reload}
      />
      {overview.hasMore ? (
        <button type="button" class="secondary" disabled={overview.more.busy} onClick={() => void overview.more.run()}>
          {overview.more.busy ? 'Loading…' : 'More cases'}
        </button>
      ) : null}
      <ErrorMessage error={overview.more.error} action="Could not load more cases" />
      {caseForm ? (
        <CaseForm
          key={caseForm.existing?.id ?? 'new'}
          projectId={projectId}
          suiteId={suiteId}
          existing={caseForm.existing}
          onSaved={() => {
            setCaseForm(null);
            reload();
          }}
          onCancel={() => setCaseForm(null)}
        />
      ) : (
        <button type="button" onClick={() => setCaseForm({})}>
          Add a case
        </button>
      )}

      <ScheduleForm suite={suite} onSaved={reload} />
    </section>
  );
}

function CasesTable({
  projectId,
  suiteId,
  cases,
  onEdit,
  onDeleted,
}: {
  projectId: string;
  suiteId: string;
  cases: SuiteOverview['cases'];
  onEdit(existing: EvalCase): void;
  onDeleted(): void;
}) {
  const [confirming, setConfirming] = useState<string | null>(null);
  const casePath = (caseId: string) =>
    `/projects/${encodeURIComponent(projectId)}/eval-suites/${encodeURIComponent(suiteId)}/cases/${encodeURIComponent(caseId)}`;
  // The full case (prompt, expectations) is read when it is edited: the table needs only titles and history.
  const edit = useAction(async (caseId: string) => onEdit(await api<EvalCase>(casePath(caseId))));
  const remove = useAction(async (caseId: string) => {
    await api(casePath(caseId), { method: 'DELETE' });
    setConfirming(null);
    onDeleted();
  });
  if (cases.length === 0) return <p class="muted">No cases.</p>;
  return (
    <>
      <div class="table-wrap">
        <table>
          <caption>Each case's pass rate over the runs above, oldest first</caption>
          <thead>
            <tr>
              <th scope="col">Case</th>
              <th scope="col">History</th>
              <th scope="col" class="num">
                Latest
              </th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {cases.map((c) => {
              const values = c.history.map((h) => h.passRate);
              const latest = [...values].reverse().find((v) => v !== null) ?? null;
              return (
                <tr key={c.id}>
                  <th scope="row">{c.title}</th>
                  <td>
                    <Sparkline values={values} label={`Pass rate of ${c.title}`} />
                  </td>
                  <td class="num">{percent(latest)}</td>
                  <td>
                    <div class="actions">
                      <button
                        type="button"
                        class="secondary"
                        aria-label={`Edit ${c.title}`}
                        disabled={edit.busy}
                        onClick={() => void edit.run(c.id)}
                      >
                        Edit
                      </button>
                      {confirming === c.id ? (
                        <>
                          <button
                            type="button"
                            class="danger"
                            aria-label={`Confirm deleting ${c.title}`}
                            disabled={remove.busy}
                            onClick={() => void remove.run(c.id)}
                          >
                            Delete for good
                          </button>
                          <button type="button" class="secondary" onClick={() => setConfirming(null)}>
                            Keep
                          </button>
                        </>
                      ) : (
                        <button
                          type="button"
                          class="danger"
                          aria-label={`Delete ${c.title}`}
                          onClick={() => setConfirming(c.id)}
                        >
                          Delete
                        </button>
                      )}
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <ErrorMessage error={edit.error} action="Could not read the case" />
      <ErrorMessage error={remove.error} action="The case was not deleted" />
    </>
  );
}

/**
 * The suite view's request: the suite, its newest runs and the first page of its cases with their history over them;
 * "More cases" follows `casesNextCursor`. The pages read are kept until the overview is asked for again (a reload).
 */
function useOverview(projectId: string, suiteId: string) {
  const path = `/projects/${encodeURIComponent(projectId)}/eval-suites/${encodeURIComponent(suiteId)}/overview?limit=${RUNS}`;
  const first = useApi<SuiteOverview>(path);
  const [pages, setPages] = useState<{ of: SuiteOverview; cases: SuiteOverview['cases']; next?: string }>();
  const later = pages && pages.of === first.data ? pages : undefined;
  const next = later ? later.next : first.data?.casesNextCursor;
  const more = useAction(async () => {
    const of = first.data;
    if (!of || !next) return;
    const page = await api<SuiteOverview>(`${path}&casesCursor=${encodeURIComponent(next)}`);
    setPages({ of, cases: [...(later?.cases ?? []), ...page.cases], next: page.casesNextCursor });
  });
  return {
    ...first,
    cases: [...(first.data?.cases ?? []), ...(later?.cases ?? [])],
    hasMore: Boolean(next),
    more,
  };
}
