import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/client';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { OperationFailure } from '../failures.js';
import { limits } from '../limits.js';

/**
 * The Tasks extension of MCP 2026-07-28 (SEP-2663): a server may answer a tools/call with a task
 * (`resultType: "task"`) that the client polls with tasks/get until it ends, answers with tasks/update when it asks
 * for input, and may cancel with tasks/cancel. The SDK's client declares the extension when told to, but refuses a
 * task answer; this module is the piece built on top of it: the answer is replaced before the SDK reads it
 * (answerShapes.ts, `placeholderFor`), handed back as a placeholder result, and polled here (`awaitTask`).
 */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** Where a placeholder result carries the task it stands for (never in a result a server sends). */
const TASK_MARK = 'dev.runway/task';

const taskSchema = z.looseObject({
  taskId: z.string().min(1).max(1024),
  status: z.string().max(64),
  statusMessage: z.string().optional(),
  pollIntervalMs: z.number().optional(),
  result: z.unknown().optional(),
  error: z.looseObject({ code: z.number(), message: z.string() }).optional(),
  inputRequests: z.record(z.string(), z.unknown()).optional(),
});

/** A task as the server describes it (the task answer, and each tasks/get). */
export type TaskState = z.infer<typeof taskSchema>;

/** A task answer as the SDK's Client is handed it: a complete, empty tool result marking the task (answerShapes.ts). */
export function placeholderFor(message: JSONRPCMessage): JSONRPCMessage {
  const result = (message as { result?: Record<string, unknown> }).result;
  if (!result || result.resultType !== 'task' || !('id' in message)) return message;
  const { resultType: _task, ...task } = result;
  const id = message.id as string | number;
  return { jsonrpc: '2.0', id, result: { resultType: 'complete', content: [], _meta: { [TASK_MARK]: task } } };
}

/** The task a placeholder result stands for, if it is one. A task answer that is not a task is an invalid answer. */
export function taskOf(result: { _meta?: Record<string, unknown> }): TaskState | undefined {
  const marked = result._meta?.[TASK_MARK];
  if (marked === undefined) return undefined;
  const parsed = taskSchema.safeParse(marked);
  if (!parsed.success)
    throw new OperationFailure('SERVER_UNREACHABLE', 'the server answered with a task Runway cannot read', {
      reason: 'INVALID_RESPONSE',
      phase: 'request',
    });
  return parsed.data;
}

export interface TaskPolling {
  /** one tasks/* request to the server (tasks/get, tasks/update, tasks/cancel) */
  request(method: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>>;
  /** the answer to one input request of a task that asks (the same answers as the call's other questions) */
  answer(key: string, inputRequest: unknown, signal: AbortSignal): Promise<unknown>;
  signal?: AbortSignal;
  /** how long the task may take in all, from now: past it the task is cancelled and the call times out */
  deadlineMs: number;
  serverName: string;
}

/** Polls no faster than this, whatever the server suggests, and no slower than the longest wait. */
const MIN_POLL_MS = 50;
const MAX_POLL_MS = 5_000;
const DEFAULT_POLL_MS = 500;
/** How long a tasks/cancel sent on the way out (timeout, the caller's abort) may take. */
const CANCEL_MS = 2_000;

/**
 * Follows a task to its end: tasks/get at the server's pollIntervalMs; input it asks for answered with tasks/update
 * (at most limits.inputRequiredRounds times); `completed` is the tool's result, `failed` and `cancelled` a result
 * with `isError` (a tool-level failure, as the spec's task failure is the tool's). Past the deadline, or when the
 * caller aborts, the task is cancelled on the server (tasks/cancel) before the call ends.
 */
export async function awaitTask(first: TaskState, polling: TaskPolling): Promise<CallToolResult> {
  const startedAt = Date.now();
  const { signal } = polling;
  let task = first;
  let rounds = 0;
  try {
    for (;;) {
      if (task.status === 'completed') return completedResult(task);
      if (task.status === 'failed') return failedResult(task);
      if (task.status === 'cancelled') return textResult(`the task ${task.taskId} was cancelled by the server`);
      if (task.status === 'input_required' && task.inputRequests && Object.keys(task.inputRequests).length > 0) {
        if (++rounds > limits.inputRequiredRounds)
          throw new OperationFailure(
            'SERVER_UNREACHABLE',
            `server '${polling.serverName}': its task ${task.taskId} kept asking for input past ${limits.inputRequiredRounds} rounds`,
            { reason: 'INPUT_REQUIRED_ROUNDS_EXCEEDED', phase: 'request', taskId: task.taskId, retryable: false },
          );
        const inputResponses = await answerAll(task.inputRequests, polling, signal ?? new AbortController().signal);
        await polling.request('tasks/update', { taskId: task.taskId, inputResponses }, signal);
      } else {
        await wait(pollDelay(task), signal, startedAt + polling.deadlineMs);
      }
      if (Date.now() - startedAt >= polling.deadlineMs) throw taskTimeout(task, polling, Date.now() - startedAt);
      task = parseTask(await polling.request('tasks/get', { taskId: task.taskId }, signal), task.taskId);
    }
  } catch (error) {
    // The caller gave up (aborted, or the deadline passed): the server stops the work too.
    if (signal?.aborted || (error instanceof OperationFailure && error.code === 'TIMEOUT'))
      await polling.request('tasks/cancel', { taskId: task.taskId }, AbortSignal.timeout(CANCEL_MS)).catch(() => {});
    throw error;
  }
}

async function answerAll(
  inputRequests: Record<string, unknown>,
  polling: TaskPolling,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const answers: Record<string, unknown> = {};
  for (const [key, request] of Object.entries(inputRequests)) answers[key] = await polling.answer(key, request, signal);
  return answers;
}

function parseTask(raw: Record<string, unknown>, taskId: string): TaskState {
  const parsed = taskSchema.safeParse(raw);
  if (!parsed.success || parsed.data.taskId !== taskId)
    throw new OperationFailure(
      'SERVER_UNREACHABLE',
      `the server described task ${taskId} in a way Runway cannot read`,
      {
        reason: 'INVALID_RESPONSE',
        phase: 'request',
        taskId,
      },
    );
  return parsed.data;
}

const pollDelay = (task: TaskState) =>
  Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, Math.round(task.pollIntervalMs ?? DEFAULT_POLL_MS)));

/** Waits `ms`, but not past the deadline, and not once the caller aborts. */
async function wait(ms: number, signal: AbortSignal | undefined, deadline: number): Promise<void> {
  await sleep(Math.max(0, Math.min(ms, deadline - Date.now())), undefined, signal ? { signal } : undefined);
}

function taskTimeout(task: TaskState, polling: TaskPolling, elapsedMs: number): OperationFailure {
  return new OperationFailure(
    'TIMEOUT',
    `server '${polling.serverName}': its task ${task.taskId} did not end in ${polling.deadlineMs} ms (last status ${task.status}); Runway cancelled it`,
    { phase: 'request', elapsedMs, taskId: task.taskId, taskStatus: task.status },
  );
}

function completedResult(task: TaskState): CallToolResult {
  const result = task.result as CallToolResult | undefined;
  if (result && typeof result === 'object' && Array.isArray(result.content)) {
    const { resultType: _complete, ...rest } = result as CallToolResult & { resultType?: unknown };
    return rest as CallToolResult;
  }
  return textResult(`the task ${task.taskId} completed without a tool result`);
}

function failedResult(task: TaskState): CallToolResult {
  const why = task.error ? `${task.error.message} (${task.error.code})` : (task.statusMessage ?? 'no reason given');
  return textResult(`the task ${task.taskId} failed: ${why}`);
}

const textResult = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });
