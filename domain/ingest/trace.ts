import { compareArguments, scoreToolCalls } from '../evals/scoring.js';

export interface TraceMessage {
  role: string;
  content?: unknown;
  [extra: string]: unknown;
}

export interface TraceSpanInput {
  id: string;
  parentId?: string;
  name: string;
  category: 'llm' | 'tool' | 'step' | 'error';
  startMs: number;
  endMs: number;
  status?: string;
  [extra: string]: unknown;
}

/** The three forms a reporter may send: plain text, a message list, or the structured form. */
export type TraceInput =
  | string
  | TraceMessage[]
  | {
      messages?: TraceMessage[];
      spans?: TraceSpanInput[];
      prompts?: Record<string, unknown>[];
      [extra: string]: unknown;
    };

/**
 * What a trace is read with: the parts of a reported result (domain/ingest/results.ts IngestResult) that
 * normalizeTrace uses. Declared here, so that this file needs nothing from results.ts, which stores the trace.
 */
export interface TracedResult {
  trace?: TraceInput;
  query?: string;
  passed: boolean;
  isNegativeTest?: boolean;
  expectedToolCalls?: TracedToolCall[];
  actualToolCalls?: TracedToolCall[];
}

interface TracedToolCall {
  toolName: string;
  arguments?: Record<string, unknown>;
  [extra: string]: unknown;
}

type Row = Record<string, unknown>;
const isRow = (value: unknown): value is Row => typeof value === 'object' && value !== null && !Array.isArray(value);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/**
 * A reported trace in the shape GET .../trace answers for executed runs: `{ traceVersion: 1, messages, spans,
 * prompts }`, so readers need not know where an iteration came from. Plain text becomes one assistant message;
 * fields we do not know (e.g. the SDK's `raw`) are kept. Without a trace nothing is stored (404
 * TRACE_NOT_AVAILABLE), as for an executed iteration that has none.
 */
export function normalizeTrace(result: TracedResult): object | null {
  const { trace } = result;
  if (trace === undefined) return null;
  const given: Exclude<TraceInput, string | TraceMessage[]> =
    typeof trace === 'string'
      ? { messages: [{ role: 'assistant', content: trace }] }
      : Array.isArray(trace)
        ? { messages: trace }
        : trace;
  const { messages, spans, prompts, ...extra } = given;
  return {
    ...extra,
    traceVersion: 1,
    messages: messages ?? [],
    spans: (spans ?? []).map((span) => ({ ...span, status: span.status ?? 'ok' })),
    prompts: prompts && prompts.length > 0 ? prompts.map((p, i) => toPrompt(p, i, result)) : [analysedPrompt(result)],
  };
}

/** A reporter's per-prompt analysis in our field names; the MCPJam SDK names argument mismatches differently. */
function toPrompt(given: Row, index: number, result: TracedResult): Row {
  const {
    promptIndex,
    prompt,
    expectedToolCalls,
    actualToolCalls,
    passed,
    missing,
    unexpected,
    argumentMismatches,
    ...extra
  } = given;
  return {
    ...extra,
    promptIndex: typeof promptIndex === 'number' ? promptIndex : index,
    prompt: typeof prompt === 'string' ? prompt : index === 0 ? (result.query ?? '') : '',
    expectedToolCalls: list(expectedToolCalls),
    actualToolCalls: list(actualToolCalls),
    passed: typeof passed === 'boolean' ? passed : result.passed,
    missing: list(missing),
    unexpected: list(unexpected),
    argumentMismatches: list(argumentMismatches).filter(isRow).map(toArgumentMismatch),
  };
}

/** `{ toolName, expectedArgs, actualArgs }` (MCPJam SDK) -> `{ expected, actual, mismatchedArguments }` (ours). */
function toArgumentMismatch(mismatch: Row): Row {
  if (Array.isArray(mismatch.mismatchedArguments)) return mismatch;
  const { toolName, expectedArgs, actualArgs, ...extra } = mismatch;
  const expected = isRow(expectedArgs) ? expectedArgs : {};
  const actual = isRow(actualArgs) ? actualArgs : {};
  return {
    ...extra,
    expected: { toolName, arguments: expected },
    actual: { toolName, arguments: actual },
    mismatchedArguments: compareArguments(expected, actual, 'partial'),
  };
}

/**
 * Expected-vs-actual for a trace that brought no analysis, by the same matcher executed runs use. `passed` stays
 * the reporter's verdict: the analysis explains, it does not re-judge.
 */
function analysedPrompt(result: TracedResult): Row {
  const expected = (result.expectedToolCalls ?? []).map(({ toolName, arguments: args }) => ({
    toolName,
    ...(args !== undefined && { arguments: args }),
  }));
  const actual = (result.actualToolCalls ?? []).map((call) => ({
    ...call,
    arguments: call.arguments ?? {},
    isError: call.isError === true,
  }));
  const score = scoreToolCalls({ expected, actual, isNegativeTest: result.isNegativeTest });
  return {
    promptIndex: 0,
    prompt: result.query ?? '',
    expectedToolCalls: expected,
    actualToolCalls: actual,
    passed: result.passed,
    missing: score.missing,
    unexpected: score.unexpected,
    argumentMismatches: score.argumentMismatches,
  };
}
