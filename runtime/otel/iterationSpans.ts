import { createHash } from 'node:crypto';
import { SpanKind, SpanStatusCode, TraceFlags, type Attributes, type Link, type SpanContext } from '@opentelemetry/api';
import { hrTimeDuration, millisToHrTime, type InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_EVALUATION_EXPLANATION,
  ATTR_GEN_AI_EVALUATION_NAME,
  ATTR_GEN_AI_EVALUATION_SCORE_LABEL,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_SYSTEM,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_MCP_METHOD_NAME,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
} from '@opentelemetry/semantic-conventions/incubating';
import type { Run } from '../../domain/evals/run.js';
import type { Iteration, IterationCompletion } from '../../domain/evals/iteration.js';
import type { TraceSpan } from '../../domain/models/trace.js';

/**
 * An eval iteration's stored trace (domain/evals/executeIteration.ts buildTrace, failedOutcome) as OpenTelemetry
 * spans, following the GenAI semantic conventions: one trace per iteration, its id the W3C trace id the iteration's
 * MCP requests carried in `params._meta.traceparent` (so a server's own spans join it), an `invoke_agent` root span
 * linked to the run's span, under it the agent loop's steps, each model call (`chat <model>`, with its tokens), each
 * tool call (`execute_tool <tool>`, an MCP `tools/call`: its length is the server's reply time), rate-limit waits, and
 * a `grade` span holding the judge's calls and, as `gen_ai.evaluation.result` events, each turn's tool-call score
 * and output check. Span ids are derived from the iteration's id, so a re-export sends the same spans.
 */

/** What an exported iteration is made from: its run, its row, what the batch stored, and when it started. */
export interface StoredIteration {
  run: Pick<Run, 'id' | 'organizationId' | 'projectId' | 'suiteId' | 'runNumber' | 'source'>;
  iteration: Pick<Iteration, 'id' | 'caseId' | 'title' | 'iterationNumber' | 'modelIndex'>;
  outcome: IterationCompletion;
  /** epoch ms */
  startedAt: number;
}

/** Where the spans come from: the process's resource, and Runway as the instrumentation scope. */
export interface SpanOrigin {
  resource: Resource;
  scope: InstrumentationScope;
}

const W3C_TRACE_ID = /^[0-9a-f]{32}$/;
const MAX_TEXT = 512;

const digest = (text: string) => createHash('sha256').update(text).digest('hex');

/** A span id (16 hex digits, never all zeros) derived from `text`. */
function spanIdOf(text: string): string {
  const id = digest(text).slice(0, 16);
  return /[^0]/.test(id) ? id : '0000000000000001';
}

/**
 * The run-level span's context: derived from the run's id, so the worker links each iteration to it before the run
 * ends, and whichever process ends the run emits the span itself with the same ids.
 */
export function runSpanContext(runId: string): SpanContext {
  const hash = digest(`runway-run:${runId}`);
  return { traceId: hash.slice(0, 32), spanId: spanIdOf(`runway-run-span:${runId}`), traceFlags: TraceFlags.SAMPLED };
}

/** The iteration's trace id: the one its MCP requests carried, else (none recorded: a re-grade) one from its id. */
export function iterationTraceId(iterationId: string, recorded: unknown): string {
  if (typeof recorded === 'string' && W3C_TRACE_ID.test(recorded) && /[^0]/.test(recorded)) return recorded;
  return digest(`runway-iteration:${iterationId}`).slice(0, 32);
}

/** OpenTelemetry's `gen_ai.provider.name` for a Runway provider (others keep Runway's name). */
export function genAiProvider(provider: string | null | undefined): string | undefined {
  if (!provider) return undefined;
  return provider === 'google' ? 'gcp.gemini' : provider;
}

const cut = (text: string) => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text);

function defined(attributes: Record<string, string | number | boolean | undefined | null>): Attributes {
  return Object.fromEntries(Object.entries(attributes).filter(([, v]) => v !== undefined && v !== null)) as Attributes;
}

interface SpanInput {
  name: string;
  kind: SpanKind;
  context: SpanContext;
  parent?: SpanContext;
  startMs: number;
  endMs: number;
  attributes: Attributes;
  status?: { code: SpanStatusCode; message?: string };
  links?: Link[];
  events?: TimedEvent[];
}

function readable(origin: SpanOrigin, input: SpanInput): ReadableSpan {
  const startTime = millisToHrTime(input.startMs);
  const endTime = millisToHrTime(Math.max(input.endMs, input.startMs));
  return {
    name: input.name,
    kind: input.kind,
    spanContext: () => input.context,
    ...(input.parent && { parentSpanContext: input.parent }),
    startTime,
    endTime,
    duration: hrTimeDuration(startTime, endTime),
    status: input.status ?? { code: SpanStatusCode.UNSET },
    attributes: input.attributes,
    links: input.links ?? [],
    events: input.events ?? [],
    ended: true,
    resource: origin.resource,
    instrumentationScope: origin.scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

/** The stored trace's parts this conversion reads, each checked: a trace is JSON written by an older release too. */
interface StoredTrace {
  traceId?: unknown;
  spans?: unknown;
  prompts?: unknown;
  error?: unknown;
}

const isSpan = (value: unknown): value is TraceSpan =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as TraceSpan).id === 'string' &&
  typeof (value as TraceSpan).name === 'string' &&
  typeof (value as TraceSpan).startMs === 'number' &&
  typeof (value as TraceSpan).endMs === 'number';

interface StoredPrompt {
  promptIndex: number;
  passed: boolean;
  missing?: unknown[];
  unexpected?: unknown[];
  reasons?: unknown[];
  outputCheck?: { mode?: unknown; passed?: unknown; reason?: unknown };
}

const isPrompt = (value: unknown): value is StoredPrompt =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as StoredPrompt).promptIndex === 'number' &&
  typeof (value as StoredPrompt).passed === 'boolean';

function statusOf(span: TraceSpan): SpanInput['status'] {
  if (span.status === 'error')
    return { code: SpanStatusCode.ERROR, message: cut(span.category === 'error' ? span.name : 'error') };
  if (span.status === 'cancelled') return { code: SpanStatusCode.ERROR, message: 'cancelled' };
  return undefined;
}

/** One recorded span's name, kind and attributes, by its category. */
function describe(span: TraceSpan, provider: string | undefined): Pick<SpanInput, 'name' | 'kind' | 'attributes'> {
  const tokens = {
    [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: span.inputTokens,
    [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: span.outputTokens,
  };
  const common = { 'runway.span.category': span.category, 'runway.span.name': span.name };
  switch (span.category) {
    case 'llm':
    case 'judge':
      return {
        name: `${GEN_AI_OPERATION_NAME_VALUE_CHAT} ${span.modelId ?? span.name}`,
        kind: SpanKind.CLIENT,
        attributes: defined({
          ...common,
          [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_CHAT,
          [ATTR_GEN_AI_PROVIDER_NAME]: provider,
          [ATTR_GEN_AI_SYSTEM]: provider,
          [ATTR_GEN_AI_REQUEST_MODEL]: span.modelId,
          ...tokens,
        }),
      };
    case 'tool':
      return {
        name: `${GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL} ${span.toolName ?? span.name}`,
        kind: SpanKind.CLIENT,
        attributes: defined({
          ...common,
          [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
          [ATTR_GEN_AI_TOOL_NAME]: span.toolName ?? span.name,
          [ATTR_GEN_AI_TOOL_TYPE]: 'extension',
          [ATTR_MCP_METHOD_NAME]: 'tools/call',
          // the MCP request from sending it to the server's reply
          'runway.mcp.reply_ms': span.endMs - span.startMs,
        }),
      };
    case 'rate-limit':
      return {
        name: 'rate-limit wait',
        kind: SpanKind.INTERNAL,
        attributes: defined({
          ...common,
          'runway.rate_limit.provider': span.provider,
          'runway.rate_limit.delay_ms': span.delayMs,
        }),
      };
    case 'error':
      return {
        name: 'error',
        kind: SpanKind.INTERNAL,
        attributes: defined({ ...common, 'runway.span.name': cut(span.name) }),
      };
    default:
      return { name: span.name, kind: SpanKind.INTERNAL, attributes: defined({ ...common, ...tokens }) };
  }
}

/** The evaluation events of a turn: its tool-call score and, when it has one, its output check. */
function promptEvents(prompt: StoredPrompt, atMs: number): TimedEvent[] {
  const time = millisToHrTime(atMs);
  const reasons = (prompt.reasons ?? []).filter((r): r is string => typeof r === 'string');
  const toolCallsPassed = !reasons.some((r) => !r.startsWith('Output check'));
  const events: TimedEvent[] = [
    {
      name: 'gen_ai.evaluation.result',
      time,
      attributes: defined({
        [ATTR_GEN_AI_EVALUATION_NAME]: 'tool_calls',
        [ATTR_GEN_AI_EVALUATION_SCORE_LABEL]: toolCallsPassed ? 'pass' : 'fail',
        [ATTR_GEN_AI_EVALUATION_EXPLANATION]: reasons.length > 0 ? cut(reasons.join('; ')) : undefined,
        'runway.prompt.index': prompt.promptIndex,
        'runway.prompt.passed': prompt.passed,
        'runway.prompt.missing_tool_calls': prompt.missing?.length ?? 0,
        'runway.prompt.unexpected_tool_calls': prompt.unexpected?.length ?? 0,
      }),
      droppedAttributesCount: 0,
    },
  ];
  const check = prompt.outputCheck;
  if (check && typeof check.passed === 'boolean')
    events.push({
      name: 'gen_ai.evaluation.result',
      time,
      attributes: defined({
        [ATTR_GEN_AI_EVALUATION_NAME]: `output_check.${typeof check.mode === 'string' ? check.mode : 'unknown'}`,
        [ATTR_GEN_AI_EVALUATION_SCORE_LABEL]: check.passed ? 'pass' : 'fail',
        [ATTR_GEN_AI_EVALUATION_EXPLANATION]: typeof check.reason === 'string' ? cut(check.reason) : undefined,
        'runway.prompt.index': prompt.promptIndex,
      }),
      droppedAttributesCount: 0,
    });
  return events;
}

/** The iteration's spans, root first. */
export function iterationSpans(origin: SpanOrigin, stored: StoredIteration): ReadableSpan[] {
  const { run, iteration, outcome, startedAt } = stored;
  const trace = (typeof outcome.trace === 'object' && outcome.trace !== null ? outcome.trace : {}) as StoredTrace;
  const traceId = iterationTraceId(iteration.id, trace.traceId);
  const contextOf = (key: string): SpanContext => ({
    traceId,
    spanId: spanIdOf(`${iteration.id}/${key}`),
    traceFlags: TraceFlags.SAMPLED,
  });
  const root = contextOf('');
  const provider = genAiProvider(outcome.provider);
  const recorded = (Array.isArray(trace.spans) ? trace.spans : []).filter(isSpan);
  const prompts = (Array.isArray(trace.prompts) ? trace.prompts : []).filter(isPrompt);
  const endMs = startedAt + outcome.durationMs;
  const failed = outcome.status === 'failed';

  const rootSpan = readable(origin, {
    name: `${GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT} ${cut(iteration.title)}`,
    kind: SpanKind.INTERNAL,
    context: root,
    startMs: startedAt,
    endMs,
    links: [{ context: runSpanContext(run.id), attributes: { 'runway.link': 'run' } }],
    status: failed ? { code: SpanStatusCode.ERROR, message: cut(outcome.error ?? 'failed') } : undefined,
    attributes: defined({
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
      [ATTR_GEN_AI_AGENT_NAME]: 'runway-eval',
      [ATTR_GEN_AI_PROVIDER_NAME]: provider,
      [ATTR_GEN_AI_SYSTEM]: provider,
      [ATTR_GEN_AI_REQUEST_MODEL]: outcome.model,
      [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: outcome.usage.inputTokens,
      [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: outcome.usage.outputTokens,
      [ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: outcome.usage.cachedInputTokens,
      [ATTR_ERROR_TYPE]: failed ? errorType(outcome.errorDetails) : undefined,
      'runway.organization.id': run.organizationId,
      'runway.project.id': run.projectId,
      'runway.suite.id': run.suiteId,
      'runway.run.id': run.id,
      'runway.run.number': run.runNumber,
      'runway.run.source': run.source,
      'runway.iteration.id': iteration.id,
      'runway.iteration.number': iteration.iterationNumber,
      'runway.iteration.model_index': iteration.modelIndex,
      'runway.iteration.status': outcome.status,
      'runway.iteration.result': outcome.result,
      'runway.iteration.cost_usd': outcome.costUsd,
      'runway.case.id': iteration.caseId,
      'runway.case.title': cut(iteration.title),
      'runway.trace.regrade': outcome.traceMerge === true ? true : undefined,
    }),
  });

  // The grading after the agent loop: from its last recorded moment to the iteration's end; the judge's calls in it.
  const agentEnd = Math.max(0, ...recorded.filter((s) => s.category !== 'judge').map((s) => s.endMs));
  const graded = prompts.length > 0 || recorded.some((s) => s.category === 'judge');
  const grade = contextOf('grade');
  const spans: ReadableSpan[] = [rootSpan];
  const ids = new Set(recorded.map((s) => s.id));
  for (const span of recorded) {
    const parent =
      span.category === 'judge' && graded
        ? grade
        : span.parentId !== undefined && ids.has(span.parentId)
          ? contextOf(`span:${span.parentId}`)
          : root;
    spans.push(
      readable(origin, {
        ...describe(span, span.category === 'judge' ? (genAiProvider(span.provider) ?? provider) : provider),
        context: contextOf(`span:${span.id}`),
        parent,
        startMs: startedAt + span.startMs,
        endMs: startedAt + span.endMs,
        status: statusOf(span),
      }),
    );
  }
  if (graded)
    spans.push(
      readable(origin, {
        name: 'grade',
        kind: SpanKind.INTERNAL,
        context: grade,
        parent: root,
        startMs: startedAt + Math.min(agentEnd, outcome.durationMs),
        endMs,
        attributes: defined({
          'runway.span.category': 'grade',
          'runway.iteration.result': outcome.result,
          'runway.prompts': prompts.length,
          'runway.prompts.passed': prompts.filter((p) => p.passed).length,
        }),
        events: prompts.flatMap((p) => promptEvents(p, endMs)),
      }),
    );
  return spans;
}

function errorType(details: unknown): string {
  if (typeof details === 'object' && details !== null) {
    const { code, reason } = details as { code?: unknown; reason?: unknown };
    if (typeof code === 'string') return code;
    if (typeof reason === 'string') return reason;
  }
  return '_OTHER';
}

/** The run-level span, emitted once the run has ended: every iteration's root span links to it. */
export function runSpan(
  origin: SpanOrigin,
  run: Pick<
    Run,
    | 'id'
    | 'organizationId'
    | 'projectId'
    | 'suiteId'
    | 'runNumber'
    | 'source'
    | 'status'
    | 'result'
    | 'summary'
    | 'createdAt'
    | 'startedAt'
    | 'error'
  >,
  endedAt: Date,
): ReadableSpan {
  const summary = run.summary ?? undefined;
  return readable(origin, {
    name: `eval run #${run.runNumber}`,
    kind: SpanKind.INTERNAL,
    context: runSpanContext(run.id),
    startMs: (run.startedAt ?? run.createdAt).getTime(),
    endMs: endedAt.getTime(),
    status: run.status === 'failed' ? { code: SpanStatusCode.ERROR, message: cut(run.error ?? 'failed') } : undefined,
    attributes: defined({
      'runway.organization.id': run.organizationId,
      'runway.project.id': run.projectId,
      'runway.suite.id': run.suiteId,
      'runway.run.id': run.id,
      'runway.run.number': run.runNumber,
      'runway.run.source': run.source,
      'runway.run.status': run.status,
      'runway.run.result': run.result,
      'runway.run.total': summary?.total,
      'runway.run.passed': summary?.passed,
      'runway.run.failed': summary?.failed,
      'runway.run.pass_rate': summary?.passRate,
    }),
  });
}
