// The one definition of passed, failed and errored: a pure module without imports, bundled as is.
// eslint-disable-next-line @typescript-eslint/no-restricted-imports
import { iterationVerdict } from '../../../domain/evals/verdicts';
import type { EvalIteration } from '../runEvents';
import { duration } from '../format';
import { href } from '../router';
import { paths } from '../paths';
import { count } from './figures';

/** At most this many passed iterations are listed (a failed one is always shown). */
const PASSED_SHOWN = 200;

/**
 * The finished iterations, failed ones first (newest first within each group), each a link to its trace. While a
 * run goes on, new ones appear at the top of their group.
 */
export function IterationList({
  projectId,
  runId,
  iterations,
}: {
  projectId: string;
  runId: string;
  iterations: EvalIteration[];
}) {
  const newestFirst = [...iterations].reverse();
  const failed = newestFirst.filter((it) => iterationVerdict(it) !== 'passed');
  const passed = newestFirst.filter((it) => iterationVerdict(it) === 'passed');
  if (iterations.length === 0) return <p>No iteration has finished yet.</p>;
  const link = (it: EvalIteration) => href(paths.iteration, { projectId, runId, iterationId: it.id });
  return (
    <>
      {failed.length > 0 && (
        <ul class="iterations failed-iterations" aria-label="Iterations that did not pass">
          {failed.map((it) => (
            <li key={it.id} class="iteration failed">
              <a href={link(it)}>
                <span class={`badge badge-${iterationVerdict(it) === 'cancelled' ? 'cancelled' : 'failed'}`}>
                  {iterationVerdict(it)}
                </span>{' '}
                {it.title} #{it.iterationNumber}
              </a>{' '}
              <Facts iteration={it} />
              {it.error && <div class="iteration-error">{it.error}</div>}
            </li>
          ))}
        </ul>
      )}
      {passed.length > 0 && (
        <details class="passed-iterations">
          <summary>
            {passed.length} passed iteration{passed.length === 1 ? '' : 's'}
          </summary>
          <ul class="iterations" aria-label="Passed iterations">
            {passed.slice(0, PASSED_SHOWN).map((it) => (
              <li key={it.id} class="iteration">
                <a href={link(it)}>
                  {it.title} #{it.iterationNumber}
                </a>{' '}
                <Facts iteration={it} />
              </li>
            ))}
          </ul>
          {passed.length > PASSED_SHOWN && <p>… and {passed.length - PASSED_SHOWN} more.</p>}
        </details>
      )}
    </>
  );
}

function Facts({ iteration }: { iteration: EvalIteration }) {
  return (
    <span class="muted">
      {iteration.model ?? ''} · {duration(iteration.durationMs)} · {count(iteration.tokensUsed)} tokens
    </span>
  );
}
