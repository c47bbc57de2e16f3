import { describe, expect, it } from 'vitest';
import type { Case, CaseChanges } from '../../domain/evals/case.js';
import { turnChanges } from '../../domain/evals/caseWrites.js';
import { OperationFailure } from '../../domain/failures.js';

const stored = (fields: Partial<Case> = {}): Case => ({
  id: 'case_1',
  suiteId: 'suite_1',
  title: 'capital',
  query: 'What is the capital of France?',
  runs: 1,
  model: null,
  provider: null,
  models: null,
  expectedToolCalls: [],
  isNegativeTest: false,
  expectedOutput: null,
  outputCheck: null,
  turns: null,
  scenario: null,
  advancedConfig: null,
  matchOptions: null,
  elicitation: null,
  externalCaseId: null,
  ingested: false,
  deletedAt: null,
  createdAt: new Date(0),
  updatedAt: new Date(0),
  ...fields,
});

const conversation = stored({
  query: 'first',
  expectedToolCalls: [{ toolName: 'search' }, { toolName: 'fetch' }],
  turns: [
    { prompt: 'first', expectedToolCalls: [{ toolName: 'search' }] },
    { prompt: 'second', expectedToolCalls: [{ toolName: 'fetch' }], expectedOutput: 'done' },
  ],
});

/** The refusal turnChanges throws, as the API would answer it. */
function refusal(current: Case, body: CaseChanges): { code: string; message: string; details: unknown } {
  try {
    turnChanges(current, body);
  } catch (e) {
    if (!(e instanceof OperationFailure)) throw e;
    return { code: e.code, message: e.message, details: e.details };
  }
  throw new Error('the edit was accepted');
}

describe('turnChanges: an edit of a single-prompt case', () => {
  it('is the body itself when it agrees with the case', () => {
    const body = { title: 'renamed', query: 'What is the capital of Italy?', expectedToolCalls: [{ toolName: 'x' }] };
    expect(turnChanges(stored(), body)).toBe(body);
    const checked = stored({ expectedOutput: 'Paris', outputCheck: { mode: 'regex' } });
    expect(turnChanges(checked, { title: 'renamed' })).toEqual({ title: 'renamed' });
    expect(turnChanges(checked, { outputCheck: { mode: 'equals' } })).toEqual({ outputCheck: { mode: 'equals' } });
    expect(turnChanges(stored({ outputCheck: { mode: 'contains' } }), { expectedOutput: 'Paris' })).toEqual({
      expectedOutput: 'Paris',
    });
  });

  it("checks the body's expectations over the case's own: the body's null clears, its absence keeps", () => {
    const checked = stored({ expectedOutput: 'Paris', outputCheck: { mode: 'contains' } });
    const issue = { path: 'body.outputCheck', message: 'an outputCheck needs an expectedOutput to check' };
    expect(refusal(checked, { expectedOutput: null })).toEqual({
      code: 'VALIDATION_ERROR',
      message: `${issue.path}: ${issue.message}`,
      details: { issues: [issue] },
    });
    expect(refusal(stored(), { outputCheck: { mode: 'judge' } })).toMatchObject({ details: { issues: [issue] } });
    expect(turnChanges(checked, { expectedOutput: null, outputCheck: null })).toEqual({
      expectedOutput: null,
      outputCheck: null,
    });
  });

  it('checks a new expected output against the stored check, and a new check against the stored output', () => {
    const regex = stored({ expectedOutput: 'Par.s', outputCheck: { mode: 'regex' } });
    expect(refusal(regex, { expectedOutput: '(' }).message).toMatch(/^body\.expectedOutput: regex check: /);
    const text = stored({ expectedOutput: '(' });
    expect(refusal(text, { outputCheck: { mode: 'regex' } }).message).toMatch(/^body\.expectedOutput: regex check: /);
    expect(turnChanges(text, { outputCheck: { mode: 'contains' } })).toEqual({ outputCheck: { mode: 'contains' } });
  });
});

describe('turnChanges: an edit that gives turns, or of a case that has them', () => {
  it('stores the first prompt as the query and every turn’s expected calls as the case’s', () => {
    const turns = [
      { prompt: 'one', expectedToolCalls: [{ toolName: 'a', arguments: { n: 1 } }] },
      { prompt: 'two', expectedToolCalls: [] },
      { prompt: 'three', expectedToolCalls: [{ toolName: 'b' }, { toolName: 'a' }] },
    ];
    expect(turnChanges(stored(), { title: 't', turns })).toEqual({
      title: 't',
      turns,
      query: 'one',
      expectedToolCalls: [{ toolName: 'a', arguments: { n: 1 } }, { toolName: 'b' }, { toolName: 'a' }],
    });
    expect(turnChanges(stored(), { turns, query: 'one', expectedToolCalls: [] })).toEqual({
      turns,
      query: 'one',
      expectedToolCalls: [{ toolName: 'a', arguments: { n: 1 } }, { toolName: 'b' }, { toolName: 'a' }],
    });
  });

  it("keeps the stored turns' query and calls when the edit does not touch them", () => {
    expect(turnChanges(conversation, { title: 'renamed', runs: 3 })).toEqual({
      title: 'renamed',
      runs: 3,
      query: 'first',
      expectedToolCalls: [{ toolName: 'search' }, { toolName: 'fetch' }],
    });
    expect(
      turnChanges(conversation, { query: 'first', expectedToolCalls: [{ toolName: 'search' }, { toolName: 'fetch' }] }),
    ).toEqual({ query: 'first', expectedToolCalls: [{ toolName: 'search' }, { toolName: 'fetch' }] });
  });

  it('leaves the turns when the edit clears them', () => {
    const body = { turns: null, query: 'one prompt now', expectedToolCalls: [{ toolName: 'x' }] };
    expect(turnChanges(conversation, body)).toBe(body);
    expect(refusal(conversation, { turns: null, outputCheck: { mode: 'equals' } }).message).toBe(
      'body.outputCheck: an outputCheck needs an expectedOutput to check',
    );
  });

  it('refuses a prompt other than the first turn’s, naming it prompt', () => {
    const issue = { path: 'body.prompt', message: "with turns, prompt is the first turn's prompt (or left out)" };
    expect(refusal(conversation, { query: 'second' })).toEqual({
      code: 'VALIDATION_ERROR',
      message: `${issue.path}: ${issue.message}`,
      details: { issues: [issue] },
    });
    expect(refusal(stored(), { query: 'other', turns: conversation.turns })).toMatchObject({
      details: { issues: [issue] },
    });
  });

  it("refuses expected calls that are not every turn's, and case-level output expectations", () => {
    expect(refusal(conversation, { expectedToolCalls: [{ toolName: 'fetch' }] }).message).toBe(
      "body.expectedToolCalls: with turns, each turn lists its expectedToolCalls (the case's, when given, are every turn's in order)",
    );
    expect(refusal(conversation, { expectedOutput: 'done' }).message).toBe(
      'body.expectedOutput: with turns, each turn has its own expectedOutput',
    );
    expect(refusal(stored({ expectedOutput: 'kept' }), { turns: conversation.turns }).message).toBe(
      'body.expectedOutput: with turns, each turn has its own expectedOutput',
    );
  });

  it("names a turn's problem by its full path, and lists every issue, the first in the message", () => {
    const turns = [
      { prompt: 'first', expectedToolCalls: [] },
      { prompt: 'second', expectedToolCalls: [], outputCheck: { mode: 'equals' as const } },
    ];
    expect(refusal(stored(), { turns, query: 'other', outputCheck: { mode: 'contains' } })).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'body.turns.1.outputCheck: an outputCheck needs an expectedOutput to check',
      details: {
        issues: [
          { path: 'body.turns.1.outputCheck', message: 'an outputCheck needs an expectedOutput to check' },
          { path: 'body.prompt', message: "with turns, prompt is the first turn's prompt (or left out)" },
          { path: 'body.outputCheck', message: 'with turns, each turn has its own outputCheck' },
        ],
      },
    });
  });
});
