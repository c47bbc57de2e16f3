import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRunwayClient } from '../../api/client.js';
import type { CliContext } from '../../cli/runway/context.js';
import { readSuiteFile } from '../../cli/runway/suiteFile.js';
import { decideRetry } from '../../activities/retryPolicy.js';
import { createRunBody, testCaseSchema } from '../../api/schemas/evals.js';
import { createCaseBody } from '../../api/schemas/cases.js';
import {
  JUDGE_PROMPT_VERSION,
  JUDGE_SYSTEM_PROMPT,
  JudgeReplyError,
  judgePrompt,
  parseVerdict,
} from '../../domain/evals/judge.js';
import {
  checkOutput,
  extractJson,
  isJsonSubset,
  MAX_PATTERN_LENGTH,
  regexMatches,
  regexProblem,
} from '../../domain/evals/outputCheck.js';

describe('contains and equals', () => {
  it('contains is the default: case-insensitive, whitespace normalized on both sides', () => {
    expect(checkOutput('The  capital\nof France is   PARIS.', 'is paris').passed).toBe(true);
    expect(checkOutput('The capital is Paris.', '  capital   is ').passed).toBe(true);
    const failed = checkOutput('The capital is Lyon.', 'Paris');
    expect(failed).toEqual({
      mode: 'contains',
      passed: false,
      expected: 'Paris',
      reason: 'the final answer does not contain "Paris"',
    });
    expect(checkOutput('', 'Paris').reason).toContain('the answer is empty');
  });

  it('caseSensitive: true compares letters as written', () => {
    expect(checkOutput('paris', 'Paris', { mode: 'contains', caseSensitive: true }).passed).toBe(false);
    expect(checkOutput('Paris', 'Paris', { mode: 'contains', caseSensitive: true }).passed).toBe(true);
  });

  it('equals needs the whole answer, whitespace normalized', () => {
    expect(checkOutput('  42 \n', '42', { mode: 'equals' }).passed).toBe(true);
    expect(checkOutput('Hello   World', 'hello world', { mode: 'equals' }).passed).toBe(true);
    expect(checkOutput('Hello World', 'hello world', { mode: 'equals', caseSensitive: true }).passed).toBe(false);
    const failed = checkOutput('The answer is 42', '42', { mode: 'equals' });
    expect(failed.passed).toBe(false);
    expect(failed.reason).toBe('the final answer "The answer is 42" does not equal "42"');
  });
});

describe('regex', () => {
  it('searches the answer, case-insensitive unless caseSensitive', () => {
    expect(checkOutput('Order #A-1234 shipped', 'order #[a-z]-\\d{4}', { mode: 'regex' }).passed).toBe(true);
    expect(
      checkOutput('Order #A-1234 shipped', 'order #[a-z]-\\d{4}', { mode: 'regex', caseSensitive: true }).passed,
    ).toBe(false);
    expect(checkOutput('total: 12', '^total: \\d+$', { mode: 'regex' }).passed).toBe(true);
    expect(checkOutput('no digits', '\\d', { mode: 'regex' })).toMatchObject({
      passed: false,
      reason: 'the final answer does not match /\\d/',
    });
  });

  it('refuses patterns that are too long, do not compile, nest unbounded quantifiers or refer back', () => {
    expect(regexProblem('a'.repeat(MAX_PATTERN_LENGTH + 1))).toMatch(/longer than/);
    expect(regexProblem('(unclosed')).toMatch(/does not compile/);
    expect(regexProblem('(a+)+$')).toMatch(/catastrophic/);
    expect(regexProblem('(a*)*b')).toMatch(/catastrophic/);
    expect(regexProblem('(?:x+y)*z')).toMatch(/catastrophic/);
    expect(regexProblem('((ab)+c)+')).toMatch(/catastrophic/);
    expect(regexProblem('(a{1,})+')).toMatch(/catastrophic/);
    expect(regexProblem('(a)\\1')).toMatch(/back-references/);
    expect(regexProblem('(?<x>a)\\k<x>')).toMatch(/back-references/);
    // fine: bounded repetition of a group, quantifiers inside a class, an escaped parenthesis
    for (const ok of ['(ab)+', '(a+)?', '(a+){2}', '[(+)]+', '\\(a+\\)+', '^\\d{3}-\\d{4}$', '(?:foo|bar)\\s+baz'])
      expect(regexProblem(ok), ok).toBeNull();
    // the check itself refuses the same patterns rather than running them
    expect(checkOutput('aaaa', '(a+)+$', { mode: 'regex' })).toMatchObject({ passed: false });
  });

  it('a pattern the heuristic lets through still cannot run away: the time limit fails the check', () => {
    // overlapping alternatives under a star: exponential on a near-miss, and not nested quantifiers
    const pattern = '^(a|a)*$';
    expect(regexProblem(pattern)).toBeNull();
    expect(regexMatches(pattern, 'u', `${'a'.repeat(40)}!`, 20)).toBe('timeout');
    const result = checkOutput(`${'a'.repeat(40)}!`, pattern, { mode: 'regex' }, { regexTimeLimitMs: 20 });
    expect(result).toMatchObject({ passed: false, reason: 'the pattern ran longer than 20 ms on the final answer' });
  });
});

describe('json-subset', () => {
  it('the expected JSON must be contained in the answer (extra keys allowed, arrays element by element)', () => {
    const check = { mode: 'json-subset' as const };
    expect(checkOutput('{"city":"Paris","temp":21,"unit":"C"}', '{"city":"Paris"}', check).passed).toBe(true);
    expect(checkOutput('{"city":"Paris","temp":21}', '{"city":"Lyon"}', check)).toMatchObject({
      passed: false,
      reason: expect.stringContaining('does not contain {"city":"Lyon"}'),
    });
    expect(checkOutput('[1,{"a":1,"b":2}]', '[1,{"a":1}]', check).passed).toBe(true);
    expect(checkOutput('[1,2,3]', '[1,2]', check).passed).toBe(false);
    expect(checkOutput('{"n":{"deep":[1,2],"x":true}}', '{"n":{"deep":[1,2]}}', check).passed).toBe(true);
    expect(checkOutput('42', '42', check).passed).toBe(true);
  });

  it('finds the first JSON value in prose or a code fence', () => {
    const answer = 'Here you go:\n```json\n{"status": "ok", "items": [1, 2]}\n```\nAnything else?';
    expect(checkOutput(answer, '{"status":"ok"}', { mode: 'json-subset' }).passed).toBe(true);
    expect(extractJson('not {json} but then {"a": "}"} and {"b":2}')).toEqual({ a: '}' });
    expect(extractJson('no json here')).toBeUndefined();
    expect(checkOutput('no json here', '{}', { mode: 'json-subset' })).toMatchObject({
      passed: false,
      reason: 'the final answer holds no JSON value',
    });
  });

  it('isJsonSubset compares types strictly', () => {
    expect(isJsonSubset({ a: 1 }, { a: '1' })).toBe(false);
    expect(isJsonSubset({ a: null }, { a: null })).toBe(true);
    expect(isJsonSubset({ a: null }, {})).toBe(false);
    expect(isJsonSubset([], {})).toBe(false);
    expect(isJsonSubset({}, [])).toBe(false);
  });
});

describe('judge', () => {
  it('the prompt is fixed and versioned', () => {
    expect(JUDGE_PROMPT_VERSION).toBe('runway-judge-1');
    expect(JUDGE_SYSTEM_PROMPT).toContain('runway-judge-1');
    const prompt = judgePrompt({ question: 'Capital of France?', answer: 'Lyon', expected: 'Paris', rubric: 'city' });
    expect(prompt).toBe(
      [
        '[runway-judge-1] Grade the final answer.',
        '<question>\nCapital of France?\n</question>',
        '<expected_output>\nParis\n</expected_output>',
        '<rubric>\ncity\n</rubric>',
        '<answer>\nLyon\n</answer>',
        'Reply with the JSON verdict only.',
      ].join('\n'),
    );
  });

  it('parses a verdict strictly', () => {
    expect(parseVerdict('{"pass": false, "score": 0.2, "reason": "wrong city"}')).toEqual({
      pass: false,
      score: 0.2,
      reason: 'wrong city',
    });
    expect(parseVerdict('```json\n{"pass": true, "score": 1, "reason": "ok"}\n```')).toEqual({
      pass: true,
      score: 1,
      reason: 'ok',
    });
    for (const garbage of [
      'I think it passes.',
      '{"pass": "yes", "score": 1, "reason": "ok"}',
      '{"pass": true, "score": 7, "reason": "ok"}',
      '{"pass": true, "score": 1}',
      '{"pass": true, "score": 1, "reason": "ok", "extra": 1}',
      '',
    ]) {
      expect(() => parseVerdict(garbage), garbage).toThrow(JudgeReplyError);
    }
  });

  it('an unparsable judge reply is retried by the retry policy, then recorded as failed', () => {
    const error = new JudgeReplyError('the judge said nonsense');
    expect(decideRetry(error, { attempt: 1, lastAttempt: 3 })).toEqual({
      action: 'retry',
      reason: 'JUDGE_REPLY_INVALID',
      message: 'the judge said nonsense',
    });
    expect(decideRetry(error, { attempt: 3, lastAttempt: 3 })).toEqual({
      action: 'fail',
      message: 'the judge said nonsense (still failing after 3 attempts)',
      details: { reason: 'JUDGE_REPLY_INVALID', attempt: 3 },
    });
  });
});

describe('case fields at the edge', () => {
  const parse = (c: Record<string, unknown>) => testCaseSchema.safeParse({ title: 't', ...c });
  const messages = (c: Record<string, unknown>) => {
    const result = parse(c);
    return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };

  it('takes an output check, mode contains by default', () => {
    const result = parse({ query: 'q', expectedOutput: 'x', outputCheck: {} });
    expect(result.success && result.data.outputCheck).toEqual({ mode: 'contains' });
    expect(messages({ query: 'q', expectedOutput: 'x', outputCheck: { mode: 'judge', rubric: 'be kind' } })).toEqual(
      [],
    );
  });

  it('refuses checks that cannot run', () => {
    expect(messages({ query: 'q', expectedOutput: '(a+)+', outputCheck: { mode: 'regex' } })).toEqual([
      expect.stringMatching(/^expectedOutput: regex check: .*catastrophic/),
    ]);
    expect(messages({ query: 'q', expectedOutput: '([', outputCheck: { mode: 'regex' } })).toEqual([
      expect.stringMatching(/^expectedOutput: regex check: the pattern does not compile/),
    ]);
    expect(messages({ query: 'q', expectedOutput: 'not json', outputCheck: { mode: 'json-subset' } })).toEqual([
      'expectedOutput: json-subset check: expectedOutput must be JSON',
    ]);
    expect(messages({ query: 'q', outputCheck: { mode: 'equals' } })).toEqual([
      'outputCheck: an outputCheck needs an expectedOutput to check',
    ]);
    expect(messages({ query: 'q', expectedOutput: 'x', outputCheck: { mode: 'equals', rubric: 'r' } })).toEqual([
      'outputCheck: a rubric is for mode "judge" only',
    ]);
    expect(messages({ query: 'q', expectedOutput: 'x', outputCheck: { mode: 'fuzzy' } })).toHaveLength(1);
  });

  it('turns replace query and expectations: query is the first prompt, expectedToolCalls every turn in order', () => {
    const turns = [
      { prompt: 'first', expectedToolCalls: [{ toolName: 'a' }] },
      { prompt: 'second', expectedOutput: '{"x":1}', outputCheck: { mode: 'json-subset' } },
      { prompt: 'third', expectedToolCalls: [{ toolName: 'b', arguments: { n: 1 } }] },
    ];
    const result = parse({ turns });
    expect(result.success).toBe(true);
    expect(result.data).toMatchObject({
      query: 'first',
      expectedToolCalls: [{ toolName: 'a' }, { toolName: 'b', arguments: { n: 1 } }],
      turns: [
        { prompt: 'first', expectedToolCalls: [{ toolName: 'a' }] },
        { prompt: 'second', expectedToolCalls: [], outputCheck: { mode: 'json-subset' } },
        { prompt: 'third' },
      ],
    });
    // what a reply shows may be sent back
    expect(messages({ query: 'first', expectedToolCalls: result.data!.expectedToolCalls, turns })).toEqual([]);
    expect(messages({ query: 'other', turns })).toEqual([
      "query: with turns, query is the first turn's prompt (or left out)",
    ]);
    expect(messages({ turns, expectedToolCalls: [{ toolName: 'z' }] })).toHaveLength(1);
    expect(messages({ turns, expectedOutput: 'x' })).toEqual([
      'expectedOutput: with turns, each turn has its own expectedOutput',
    ]);
    expect(messages({ turns: [{ prompt: 'p', outputCheck: { mode: 'regex' } }] })).toEqual([
      'turns.0.outputCheck: an outputCheck needs an expectedOutput to check',
    ]);
    expect(messages({ turns: [] })).toHaveLength(1);
    expect(messages({ turns: Array.from({ length: 21 }, (_, i) => ({ prompt: `p${i}` })) })).toEqual([
      'turns: a case has at most 20 turns',
    ]);
    expect(messages({})).toEqual(['query: a case needs a query (or turns)']);
  });

  it('POST /eval-runs and the case routes take the same fields', () => {
    const run = createRunBody.safeParse({
      suiteName: 's',
      serverIds: ['srv_1'],
      judgeModel: { model: 'judge-1', provider: 'openai' },
      tests: [{ title: 't', turns: [{ prompt: 'p', expectedToolCalls: [] }] }],
    });
    expect(run.success).toBe(true);
    const created = createCaseBody.safeParse({ title: 't', turns: [{ prompt: 'hi', expectedToolCalls: ['echo'] }] });
    expect(created.success && created.data).toMatchObject({
      query: 'hi',
      expectedToolCalls: [{ toolName: 'echo' }],
      turns: [{ prompt: 'hi', expectedToolCalls: [{ toolName: 'echo' }] }],
    });
    const mismatch = createCaseBody.safeParse({ title: 't', prompt: 'other', turns: [{ prompt: 'hi' }] });
    expect(mismatch.success).toBe(false);
  });
});

describe('the CLI suite file takes the same fields', () => {
  const dir = mkdtempSync(join(tmpdir(), 'runway-output-check-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const ctx: CliContext = {
    client: createRunwayClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'sk_unused', gatewayRetries: 0 }),
    projectId: 'default',
    json: false,
    env: {},
    stdout: process.stdout,
    stderr: process.stderr,
    print: () => {},
    note: () => {},
  };
  const file = (name: string, content: object) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(content));
    return path;
  };

  it('turns, outputCheck and judgeModel are read as written; a misspelt field is refused with a hint', async () => {
    const body = {
      suiteName: 's',
      serverIds: ['srv_1'],
      judgeModel: { model: 'judge', provider: 'openai' },
      tests: [
        { title: 'a', query: 'q', expectedOutput: '{"a":1}', outputCheck: { mode: 'json-subset' } },
        {
          title: 'b',
          turns: [{ prompt: 'one' }, { prompt: 'two', expectedOutput: 'x', outputCheck: { mode: 'judge' } }],
        },
      ],
    };
    expect((await readSuiteFile(ctx, file('ok.json', body), [])).body).toEqual(body);
    const misspelt = file('bad.json', {
      ...body,
      tests: [{ title: 'a', query: 'q', expectedOutput: 'x', outputChek: {} }],
    });
    await expect(readSuiteFile(ctx, misspelt, [])).rejects.toThrow('did you mean `outputCheck`?');
  });
});
