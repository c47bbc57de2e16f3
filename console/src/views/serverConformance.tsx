import './serverConformance.css';
import { useEffect, useState } from 'preact/hooks';
import type { z } from 'zod';
import type { serverSchema } from '../../../api/schemas/catalog';
import type {
  conformanceCheckSchema,
  conformanceCheckSummarySchema,
  startConformanceBody,
} from '../../../api/schemas/conformance';
import { api } from '../api';
import { ErrorMessage, Loading } from '../components/feedback';
import { when } from '../format';
import type { Page } from '../types';

type Server = z.infer<typeof serverSchema>;
type Check = z.infer<typeof conformanceCheckSchema>;
type CheckSummary = z.infer<typeof conformanceCheckSummarySchema>;
type Scenario = NonNullable<Check['report']>['scenarios'][number];

type Revision = NonNullable<z.infer<typeof startConformanceBody>['specVersion']>;
/** Every revision the API takes (the record's keys are checked against its schema's). */
const REVISION_NAMES: Record<Revision, string> = { '2026-07-28': '2026-07-28', '2025-11-25': '2025-11-25' };
const CONFORMANCE_REVISIONS = Object.keys(REVISION_NAMES) as Revision[];

/** How often a queued or running check is asked about. */
const POLL_MS = 2000;
/** Past checks shown (the API pages further; the CLI's --history lists them all). */
const HISTORY = 10;

const isOpen = (status: string) => status === 'queued' || status === 'running';

/**
 * A server's conformance checks (docs/SERVER-CHECKS.md): run one at a revision, follow it while it runs, read its
 * score and each scenario's checks (a failed one with the suite's message), and the server's past checks.
 */
export function ServerConformance({ base, server }: { base: string; server: Server }) {
  const path = `${base}/conformance`;
  const headingId = `conformance-${server.id}`;
  const [history, setHistory] = useState<CheckSummary[]>();
  const [shown, setShown] = useState<Check>();
  const [error, setError] = useState<Error>();
  const [revision, setRevision] = useState('');
  const [busy, setBusy] = useState(false);
  const [round, setRound] = useState(0);
  const checkable = server.transportType === 'http';

  // The history, and the newest check in full, when the panel opens and after each change.
  useEffect(() => {
    let current = true;
    api<Page<CheckSummary>>(`${path}?limit=${HISTORY}`, { fresh: true }).then(
      async (page) => {
        if (!current) return;
        setHistory(page.items);
        const newest = page.items[0];
        if (newest && !shown) setShown(await api<Check>(`${path}/${newest.checkId}`, { fresh: true }));
      },
      (e: Error) => current && setError(e),
    );
    return () => {
      current = false;
    };
    // `shown` is read, not followed: the history is read again on a change (`round`), not on each poll.
  }, [path, round]);

  // A check still open is asked about until it ends; then the history is read again.
  useEffect(() => {
    if (!shown || !isOpen(shown.status)) return;
    const timer = setTimeout(() => {
      api<Check>(`${path}/${shown.checkId}`, { fresh: true }).then(
        (check) => {
          setShown(check);
          if (!isOpen(check.status)) setRound((r) => r + 1);
        },
        (e: Error) => setError(e),
      );
    }, POLL_MS);
    return () => clearTimeout(timer);
  }, [path, shown]);

  const start = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const check = await api<Check>(path, { method: 'POST', body: revision ? { specVersion: revision } : {} });
      setShown(check);
      setRound((r) => r + 1);
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy(false);
    }
  };
  const open = async (checkId: string) => {
    setError(undefined);
    try {
      setShown(await api<Check>(`${path}/${checkId}`, { fresh: true }));
    } catch (e) {
      setError(e as Error);
    }
  };

  return (
    <section class="conformance" aria-labelledby={headingId}>
      <h3 id={headingId}>Conformance</h3>
      {checkable ? (
        <form
          class="conformance-start"
          aria-label={`Run a conformance check of ${server.name}`}
          onSubmit={(event) => {
            event.preventDefault();
            void start();
          }}
        >
          <label>
            Revision{' '}
            <select value={revision} onChange={(e) => setRevision((e.target as HTMLSelectElement).value)}>
              <option value="">the server's own</option>
              {CONFORMANCE_REVISIONS.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </label>{' '}
          <button type="submit" disabled={busy || !server.enabled || (shown !== undefined && isOpen(shown.status))}>
            {busy ? 'Starting…' : 'Run check'}
          </button>
        </form>
      ) : (
        <p class="muted">
          Only Streamable HTTP servers can be checked: the official conformance suite cannot reach a{' '}
          {server.transportType} server.
        </p>
      )}
      {error && <ErrorMessage error={error} action="Conformance check" />}
      {shown && <CheckResult check={shown} />}
      {history === undefined && !error && <Loading what="Loading the conformance checks" />}
      {history && history.length > 0 && (
        <div class="table-wrap">
          <table class="conformance-history" aria-label={`Conformance checks of ${server.name}`}>
            <thead>
              <tr>
                <th scope="col">Started</th>
                <th scope="col">Revision</th>
                <th scope="col">Status</th>
                <th scope="col">Score</th>
              </tr>
            </thead>
            <tbody>
              {history.map((c) => (
                <tr key={c.checkId} aria-current={shown?.checkId === c.checkId ? 'true' : undefined}>
                  <th scope="row">
                    <button type="button" class="link" onClick={() => void open(c.checkId)}>
                      {when(c.createdAt)}
                    </button>
                  </th>
                  <td>{c.specVersion}</td>
                  <td>
                    <span class={`badge badge-${c.status}`}>{c.status}</span>
                  </td>
                  <td>{c.score ?? (c.error ? c.error.code : '')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {history && history.length === 0 && <p class="muted">No conformance check of this server yet.</p>}
    </section>
  );
}

function CheckResult({ check }: { check: Check }) {
  const report = check.report;
  return (
    <div class="conformance-result" aria-label={`Conformance check ${check.checkId}`}>
      <p role="status">
        Check of MCP {check.specVersion}: <span class={`badge badge-${check.status}`}>{check.status}</span>
        {isOpen(check.status) && ' (this updates by itself)'}
        {report && (
          <>
            {' '}
            Score <strong class="conformance-score">{report.score.value}/100</strong>
          </>
        )}
      </p>
      {check.error && (
        <p class="failed">
          {check.error.code}: {check.error.message}
        </p>
      )}
      {report && (
        <>
          <p class="muted">
            {report.score.method} ({report.score.passedScenarios} of {report.score.scoredScenarios} scored scenarios
            passed; {report.score.failedChecks} {report.score.failedChecks === 1 ? 'check' : 'checks'} failed; suite{' '}
            {report.suiteVersion})
          </p>
          <ul class="conformance-scenarios" aria-label="Scenarios">
            {report.scenarios.map((scenario) => (
              <ScenarioResult key={scenario.name} scenario={scenario} />
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

const SCENARIO_WORDS: Record<Scenario['status'], string> = {
  passed: 'passed',
  failed: 'failed',
  not_applicable: 'not applicable',
};

function ScenarioResult({ scenario }: { scenario: Scenario }) {
  const failed = scenario.checks.filter((c) => c.status === 'failed' || c.status === 'warning');
  return (
    <li class={`scenario status-${scenario.status}`}>
      <details open={scenario.status === 'failed'}>
        <summary>
          <code>{scenario.name}</code>{' '}
          <span class={`badge badge-${scenario.status === 'not_applicable' ? 'skipped' : scenario.status}`}>
            {SCENARIO_WORDS[scenario.status]}
          </span>
          {!scenario.scored && (
            <span class="muted"> not scored{scenario.notScoredReason ? ` (${scenario.notScoredReason})` : ''}</span>
          )}
          {failed.length > 0 && <span class="muted"> — {failed.length} to look at</span>}
        </summary>
        {scenario.checks.length > 0 && (
          <table aria-label={`Checks of ${scenario.name}`}>
            <thead>
              <tr>
                <th scope="col">Check</th>
                <th scope="col">Status</th>
                <th scope="col">Message</th>
              </tr>
            </thead>
            <tbody>
              {scenario.checks.map((c) => (
                <tr key={c.id} class={`status-${c.status}`}>
                  <th scope="row" title={c.description}>
                    {c.name}
                  </th>
                  <td>{c.status}</td>
                  <td>{c.message}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </details>
    </li>
  );
}
