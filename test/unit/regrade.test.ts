import { describe, expect, it } from 'vitest';
import {
  promptsChanged,
  recordedTurns,
  regradeFailed,
  regradeIteration,
  regradeOrigin,
} from '../../domain/evals/regrade.js';
import { IterationFailure } from '../../domain/evals/executeIteration.js';
import type { BatchIteration, IterationCompletion } from '../../domain/evals/iteration.js';
import type { RunContext } from '../../domain/evals/runContext.js';

const iteration = (overrides: Partial<BatchIteration> = {}): BatchIteration => ({
  id: 'itr_1',
  runId: 'run_1',
  caseId: 'case_1',
  title: 'echo',
  query: 'echo alpha',
  iterationNumber: 1,
  modelIndex: 0,
  status: 'running',
  result: null,
  model: 'm',
  provider: 'openai',
  startedAt: null,
  durationMs: 1234,
  inputTokens: 10,
  outputTokens: 5,
  totalTokens: 15,
  cachedInputTokens: 0,
  costUsd: null,
  expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'beta' } }],
  actualToolCalls: [{ toolName: 'echo', arguments: { message: 'alpha' } }],
  error: null,
  errorDetails: null,
  metadata: { regradeOfRunId: 'run_0', regradeOfIterationId: 'itr_0' },
  isNegativeTest: false,
  externalIterationId: null,
  seq: 1,
  streamPosition: null,
  traceExpiredAt: null,
  advancedConfig: null,
  matchOptions: null,
  elicitation: null,
  expectedOutput: null,
  outputCheck: null,
  turns: null,
  ...overrides,
});

// No judge check is graded here: the context's model access is never read.
const ctx = { run: { id: 'run_1' }, servers: [], modelAccess: {}, judgeModel: null } as unknown as RunContext;
const options = { signal: new AbortController().signal, of: { runId: 'run_0', iterationId: 'itr_0' } };
const recorded = [
  {
    prompt: 'echo alpha',
    finalText: 'It said alpha.',
    actualToolCalls: [{ toolName: 'echo', arguments: { message: 'alpha' } }],
  },
];

describe('re-grading', () => {
  it('reads the recorded turns of a stored trace, and nothing from a trace without graded turns', () => {
    expect(
      recordedTurns([
        {
          prompt: 'p',
          finalText: 'a',
          actualToolCalls: [{ toolName: 't', arguments: { x: 1 }, isError: true }, 'junk'],
        },
        { prompt: 'q', actualToolCalls: null },
      ]),
    ).toEqual([
      { prompt: 'p', finalText: 'a', actualToolCalls: [{ toolName: 't', arguments: { x: 1 }, isError: true }] },
      { prompt: 'q', finalText: '', actualToolCalls: [] },
    ]);
    expect(recordedTurns([])).toBeUndefined();
    expect(recordedTurns(null)).toBeUndefined();
    expect(recordedTurns(['not a turn'])).toBeUndefined();
  });

  it('tells prompts that changed from prompts that fit', () => {
    expect(promptsChanged(['echo alpha'], recorded)).toBeUndefined();
    expect(promptsChanged(['echo alpha', 'and again'], recorded)).toBe(
      'the case now has 2 prompts, the recorded conversation answered 1',
    );
    expect(promptsChanged(['echo beta'], recorded)).toBe(
      'prompt 1 of the case changed since the recorded conversation',
    );
  });

  it('names the original iteration from flat metadata only', () => {
    expect(regradeOrigin({ regradeOfRunId: 'run_0', regradeOfIterationId: 'itr_0' })).toEqual({
      runId: 'run_0',
      iterationId: 'itr_0',
    });
    expect(regradeOrigin(null)).toBeNull();
    expect(regradeOrigin({ regradeOfRunId: 'run_0' })).toBeNull();
  });

  it('grades the recorded answer against the current expectations, keeping its usage and time', async () => {
    const failed = await regradeIteration(ctx, iteration(), recorded, options);
    expect(failed).toMatchObject({
      status: 'completed',
      result: 'failed',
      durationMs: 1234,
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
      traceMerge: true,
      trace: { regrade: { of: { runId: 'run_0', iterationId: 'itr_0' }, judgeSpans: [] } },
    });
    const prompts = (failed.trace as { prompts: { passed: boolean; finalText: string }[] }).prompts;
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toMatchObject({ passed: false, finalText: 'It said alpha.' });

    const passed = await regradeIteration(
      ctx,
      iteration({
        expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'alpha' } }],
        expectedOutput: 'said alpha',
      }),
      recorded,
      options,
    );
    expect(passed.result).toBe('passed');
    const check = await regradeIteration(
      ctx,
      iteration({ expectedToolCalls: [], expectedOutput: 'beta' }),
      recorded,
      options,
    );
    expect(check.result).toBe('failed');
  });

  it('refuses to grade a conversation that answered other prompts, or none', async () => {
    await expect(regradeIteration(ctx, iteration({ query: 'echo beta' }), recorded, options)).rejects.toBeInstanceOf(
      IterationFailure,
    );
    await expect(regradeIteration(ctx, iteration(), undefined, options)).rejects.toThrow(
      /recorded no graded conversation/,
    );
  });

  it('keeps the recorded conversation of an iteration it could not grade: only the error and empty grades merge', () => {
    const failedOutcome: IterationCompletion = {
      status: 'failed',
      result: 'failed',
      model: 'm',
      provider: 'openai',
      durationMs: 2,
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      costUsd: null,
      actualToolCalls: [],
      error: 'judge failed',
      trace: { messages: [], prompts: [], error: 'judge failed' },
    };
    expect(regradeFailed(iteration(), failedOutcome)).toMatchObject({
      status: 'failed',
      durationMs: 1234,
      usage: { totalTokens: 15 },
      actualToolCalls: [{ toolName: 'echo' }],
      trace: { prompts: [], error: 'judge failed' },
      traceMerge: true,
    });
    expect(regradeFailed(iteration(), failedOutcome).trace).not.toHaveProperty('messages');
  });
});
