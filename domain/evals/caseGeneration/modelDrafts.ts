import { generateText, jsonSchema, NoObjectGeneratedError, Output } from 'ai';
import { OperationFailure } from '../../failures.js';
import { classifyModelError, MODEL_FAILURES } from '../../models/failures.js';
import type { ChatModel } from '../../models/providers.js';
import { caseDraftsJsonSchema } from './drafts.js';
import type { GenerationPrompt } from './prompt.js';

/** How long one generation waits for the model, retries included. */
export const GENERATION_TIMEOUT_MS = 90_000;

/**
 * The AI SDK's retries of the generation's model call: its one retry owner. Generation answers an HTTP request in
 * the API process: no Temporal and no rate-limit gate stand behind it, so the SDK retries a provider's outage or rate
 * limit (honouring its Retry-After under a minute) within GENERATION_TIMEOUT_MS; past them the reply says whether
 * another try may pass (`details.retryable`, `retryAfterMs`) and asking again is the caller's.
 */
export const GENERATION_RETRIES = 2;

/** Characters of an unreadable answer quoted back, so the caller sees what the model said. */
const EXCERPT_CHARS = 200;

export interface ModelDrafts {
  /** the drafts as the model wrote them, unchecked */
  drafts: unknown[];
  usage: { inputTokens: number; outputTokens: number; totalTokens: number };
}

/**
 * Asks the model for the drafts with the AI SDK's structured output: the provider is given the drafts' JSON Schema
 * (OpenAI's `response_format`, Anthropic's and Google's equivalents) and the answer is parsed as JSON. Only the
 * envelope is required here (`{ cases: [...] }`); each draft is checked on its own afterwards (drafts.ts), so one
 * bad draft does not cost the others. An answer that is not that JSON, and every provider failure, is an
 * OperationFailure: nothing is saved from it.
 */
export async function askModelForDrafts(
  model: ChatModel,
  prompt: GenerationPrompt,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<ModelDrafts> {
  const timeoutMs = options.timeoutMs ?? GENERATION_TIMEOUT_MS;
  const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(options.signal ? [options.signal] : [])]);
  let output: unknown;
  let usage: ModelDrafts['usage'];
  try {
    const result = await generateText({
      model,
      system: prompt.system,
      prompt: prompt.prompt,
      // The schema is only sent: drafts.ts checks what comes back, draft by draft.
      output: Output.object({
        schema: jsonSchema<unknown>(caseDraftsJsonSchema),
        name: 'case_drafts',
        description: 'drafted eval cases',
      }),
      // OpenAI's strict mode cannot describe free-form `arguments` objects (every key must be listed).
      providerOptions: { openai: { strictJsonSchema: false } },
      maxRetries: GENERATION_RETRIES,
      abortSignal: signal,
    });
    output = result.output;
    usage = {
      inputTokens: result.usage.inputTokens ?? 0,
      outputTokens: result.usage.outputTokens ?? 0,
      totalTokens: result.usage.totalTokens ?? 0,
    };
  } catch (error) {
    if (NoObjectGeneratedError.isInstance(error)) throw unreadable(error.text);
    if (options.signal?.aborted) throw options.signal.reason;
    throw modelFailure(error, signal, timeoutMs);
  }
  const drafts = Array.isArray(output) ? output : (output as { cases?: unknown } | null)?.cases;
  if (!Array.isArray(drafts)) throw unreadable(JSON.stringify(output));
  return { drafts, usage };
}

function unreadable(text: string | undefined): OperationFailure {
  const said = (text ?? '').trim();
  return new OperationFailure(
    'SERVER_UNREACHABLE',
    'the model did not answer with the JSON object of cases asked for ({"cases": [...]}); nothing was saved. Try again, or another model',
    {
      reason: 'MODEL_OUTPUT_INVALID',
      retryable: true,
      excerpt: said.length > EXCERPT_CHARS ? `${said.slice(0, EXCERPT_CHARS - 1)}…` : said,
    },
  );
}

/**
 * A provider failure in the contract's codes: the model is the upstream here, so what it cannot answer is a 502
 * SERVER_UNREACHABLE with the reason an iteration records for the same cause (MODEL_FAILURES, and whether another
 * try may pass), and no answer in time a 504 TIMEOUT.
 */
function modelFailure(error: unknown, signal: AbortSignal, timeoutMs: number): OperationFailure {
  const classified = classifyModelError(error, signal);
  if (classified.kind === 'timeout' || classified.kind === 'aborted') {
    return new OperationFailure('TIMEOUT', `the model did not answer within ${timeoutMs / 1000} s; nothing was saved`, {
      reason: 'MODEL_TIMEOUT',
      timeoutMs,
    });
  }
  const { reason, transient } = MODEL_FAILURES[classified.kind];
  return new OperationFailure('SERVER_UNREACHABLE', `the model could not draft cases: ${classified.message}`, {
    reason,
    retryable: transient,
    ...(classified.status !== undefined && { status: classified.status }),
    ...(classified.retryAfterMs !== undefined && { retryAfterMs: classified.retryAfterMs }),
  });
}
