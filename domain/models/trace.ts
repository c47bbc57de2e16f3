/**
 * Spans of one iteration's agent loop, in the trace shape of contract-notes ("Eval suites and runs"): a `step`
 * span per model turn, holding the `llm` call attempts (a retried call shows every attempt) and the `tool` calls
 * it led to; a `rate-limit` span for each wait for a provider's rate-limit reset (domain/models/rateLimits.ts); an
 * `error` span for what ended the loop early; a `judge` span per grading of an answer by a judge model
 * (domain/evals/judge.ts). Times are ms since the iteration started.
 */
export type SpanCategory = 'llm' | 'tool' | 'step' | 'error' | 'judge' | 'rate-limit';
export type SpanStatus = 'ok' | 'error' | 'cancelled';

export interface TraceSpan {
  id: string;
  parentId?: string;
  name: string;
  category: SpanCategory;
  startMs: number;
  endMs: number;
  status: SpanStatus;
  toolName?: string;
  modelId?: string;
  inputTokens?: number;
  outputTokens?: number;
  /** `rate-limit` spans: the provider that limited, and how long the request waited for its reset (ms) */
  provider?: string;
  delayMs?: number;
}

type SpanFields = Pick<TraceSpan, 'toolName' | 'modelId' | 'inputTokens' | 'outputTokens' | 'provider' | 'delayMs'>;

export class TraceRecorder {
  readonly spans: TraceSpan[] = [];
  private readonly open = new Set<TraceSpan>();
  private step: TraceSpan | undefined;
  private count = 0;

  /** `now` reads ms since the iteration started. */
  constructor(readonly now: () => number) {}

  /** A span under `parentId`, by default under the current step (a step under nothing). */
  start(
    category: SpanCategory,
    name: string,
    fields: SpanFields = {},
    parentId = category === 'step' ? undefined : this.step?.id,
  ): TraceSpan {
    const at = this.now();
    const span: TraceSpan = {
      id: `${category}-${++this.count}`,
      ...(parentId !== undefined && { parentId }),
      name,
      category,
      startMs: at,
      endMs: at,
      status: 'ok',
      ...fields,
    };
    this.spans.push(span);
    this.open.add(span);
    return span;
  }

  end(span: TraceSpan, status: SpanStatus, fields: SpanFields = {}): void {
    Object.assign(span, { endMs: this.now(), status }, withoutUndefined(fields));
    this.open.delete(span);
  }

  startStep(index: number): void {
    if (this.step) this.end(this.step, 'ok');
    this.step = this.start('step', `step ${index + 1}`);
  }

  endStep(status: SpanStatus, fields: SpanFields): void {
    if (this.step) this.end(this.step, status, fields);
    this.step = undefined;
  }

  /** Ends the loop early: closes whatever is still open and records why, under the step it happened in. */
  fail(message: string, status: SpanStatus): void {
    const error = this.start('error', message);
    this.end(error, 'error');
    for (const span of this.open) this.end(span, status);
    this.step = undefined;
  }
}

function withoutUndefined(fields: SpanFields): SpanFields {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}
