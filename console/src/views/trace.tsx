import './runs.css';
import type { z } from 'zod';
import type { traceSchema } from '../../../api/schemas/evals';
import type { OutputCheckResult } from '../../../domain/evals/outputCheck';
import { Conversation } from '../components/conversation';
import { ArgumentsView, JsonView } from '../components/jsonView';
import { ErrorMessage, Loading } from '../components/feedback';
import { useApi } from '../hooks';
import { ApiError } from '../api';
import { href } from '../router';
import { paths } from '../paths';
import { Timeline } from '../components/timeline';

type Trace = z.infer<typeof traceSchema>;
type PromptScore = Trace['prompts'][number];
type Call = { toolName?: string; arguments?: Record<string, unknown>; isError?: boolean };

/** One iteration: what it was asked and expected, what the model did, why it passed or not, and where time went. */
export function TraceView({ params }: { params: Record<string, string>; query: URLSearchParams }) {
  const { projectId, runId, iterationId } = params;
  const trace = useApi<Trace>(
    `/projects/${encodeURIComponent(projectId)}/eval-runs/${encodeURIComponent(runId)}/iterations/${encodeURIComponent(iterationId)}/trace`,
  );
  const crumbs = (
    <nav class="crumbs" aria-label="Breadcrumbs">
      <a href={href(paths.suites)}>Projects</a> › <a href={href(paths.run, { projectId, runId })}>Run</a> › Iteration
    </nav>
  );
  // Deleted by the organization's retention policy (docs/OPERATIONS.md#retention): said plainly, not as a failure.
  if (trace.error instanceof ApiError && trace.error.details?.reason === 'TRACE_EXPIRED')
    return (
      <article>
        {crumbs}
        <p class="trace-expired" role="status">
          {trace.error.message}. The iteration's result, tool calls and usage are on the{' '}
          <a href={href(paths.run, { projectId, runId })}>run</a>.
        </p>
      </article>
    );
  if (trace.error)
    return (
      <article>
        {crumbs}
        <ErrorMessage error={trace.error} action="Could not load this iteration's trace" />
      </article>
    );
  if (!trace.data) return <Loading what="Loading the trace" />;
  const t = trace.data;
  const passed = t.prompts.length > 0 && t.prompts.every((p) => p.passed);
  const error = typeof t.error === 'string' ? t.error : t.error ? JSON.stringify(t.error) : null;
  return (
    <article class="trace-view">
      {crumbs}
      <header class="view-header">
        <h1>
          Iteration trace{' '}
          <span class={`badge badge-${passed ? 'passed' : 'failed'}`}>{passed ? 'passed' : 'failed'}</span>
        </h1>
        {error && <p class="error">The iteration broke: {error}</p>}
      </header>
      {t.prompts.map((prompt) => (
        <PromptSection key={prompt.promptIndex} prompt={prompt} turns={t.prompts.length} />
      ))}
      <section aria-labelledby="conversation-heading">
        <h2 id="conversation-heading">Conversation</h2>
        <Conversation messages={t.messages} />
      </section>
      <section aria-labelledby="timeline-heading">
        <h2 id="timeline-heading">Timeline</h2>
        <Timeline spans={t.spans} />
      </section>
    </article>
  );
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** One prompt (turn): expected vs actual calls side by side, mismatched arguments marked, and the output check. */
function PromptSection({ prompt, turns }: { prompt: PromptScore; turns: number }) {
  const expected = prompt.expectedToolCalls as Call[];
  const actual = prompt.actualToolCalls as Call[];
  const reasons = Array.isArray(prompt.reasons) ? (prompt.reasons as string[]) : [];
  const outputCheck = prompt.outputCheck as OutputCheckResult | undefined;
  const headingId = `prompt-${prompt.promptIndex}`;
  const markedExpected = (call: Call) =>
    prompt.argumentMismatches.find((m) => same(m.expected, call))?.mismatchedArguments ?? [];
  const markedActual = (call: Call) =>
    prompt.argumentMismatches.find((m) => same(m.actual, call))?.mismatchedArguments ?? [];
  const isMissing = (call: Call) => prompt.missing.some((m) => same(m, call));
  const isUnexpected = (call: Call) => prompt.unexpected.some((u) => same(u, call));
  return (
    <section class={`prompt ${prompt.passed ? 'passed' : 'failed'}`} aria-labelledby={headingId}>
      <h2 id={headingId}>
        {turns > 1 ? `Turn ${prompt.promptIndex + 1}` : 'Prompt'}{' '}
        <span class={`badge badge-${prompt.passed ? 'passed' : 'failed'}`}>{prompt.passed ? 'passed' : 'failed'}</span>
      </h2>
      <blockquote class="prompt-text">{prompt.prompt}</blockquote>
      {reasons.length > 0 && (
        <ul class="reasons" aria-label="Why it failed">
          {reasons.map((reason, i) => (
            <li key={i}>{reason}</li>
          ))}
        </ul>
      )}
      <div class="side-by-side">
        <div>
          <h3>Expected tool calls</h3>
          <CallList calls={expected} marked={markedExpected} flag={(c) => (isMissing(c) ? 'missing' : null)} />
        </div>
        <div>
          <h3>Actual tool calls</h3>
          <CallList calls={actual} marked={markedActual} flag={(c) => (isUnexpected(c) ? 'unexpected' : null)} />
        </div>
      </div>
      {outputCheck && <OutputCheckVerdict check={outputCheck} />}
      {typeof prompt.finalText === 'string' && prompt.finalText !== '' && (
        <>
          <h3>Final answer</h3>
          <p class="text final-answer">{prompt.finalText}</p>
        </>
      )}
    </section>
  );
}

function CallList({
  calls,
  marked,
  flag,
}: {
  calls: Call[];
  marked: (call: Call) => string[];
  flag: (call: Call) => 'missing' | 'unexpected' | null;
}) {
  if (calls.length === 0) return <p class="muted">none</p>;
  return (
    <ol class="calls">
      {calls.map((call, i) => {
        const kind = flag(call);
        const keys = marked(call);
        return (
          <li key={i} class={`call${kind ? ` ${kind}` : ''}${keys.length > 0 ? ' mismatched' : ''}`}>
            <code class="tool-name">{call.toolName}</code>
            {kind && <span class={`badge badge-${kind}`}>{kind}</span>}
            {call.isError && <span class="badge badge-failed">tool error</span>}
            <ArgumentsView args={call.arguments} marked={keys} />
          </li>
        );
      })}
    </ol>
  );
}

function OutputCheckVerdict({ check }: { check: OutputCheckResult }) {
  return (
    <div class={`output-check ${check.passed ? 'passed' : 'failed'}`}>
      <h3>
        Output check ({check.mode}){' '}
        <span class={`badge badge-${check.passed ? 'passed' : 'failed'}`}>{check.passed ? 'passed' : 'failed'}</span>
      </h3>
      <dl class="figures">
        <div>
          <dt>Expected</dt>
          <dd>
            <code>{check.expected}</code>
          </dd>
        </div>
        {check.reason && (
          <div>
            <dt>Why it failed</dt>
            <dd>{check.reason}</dd>
          </div>
        )}
        {check.verdict && (
          <div>
            <dt>Judge{check.judgeModel ? ` (${check.judgeModel})` : ''}</dt>
            <dd>
              <JsonView value={check.verdict} />
            </dd>
          </div>
        )}
      </dl>
    </div>
  );
}
