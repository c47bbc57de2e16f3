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
import { budgetedCheck, CheckBudget, RunCheckBudgets } from '../../domain/evals/checkBudget.js';
import {
  checkOutput,
  extractJson,
  isJsonSubset,
  MAX_JSON_DEPTH,
  MAX_PATTERN_LENGTH,
  MAX_REGEX_ANSWER_LENGTH,
  outputCheckProblem,
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

  it('a check that passes carries no reason', () => {
    expect(checkOutput('The capital is Paris.', 'paris')).toEqual({
      mode: 'contains',
      expected: 'paris',
      passed: true,
    });
    expect(checkOutput(' 42 ', '42', { mode: 'equals' })).toEqual({ mode: 'equals', expected: '42', passed: true });
  });

  it('says the answer is empty when it is only whitespace, and not otherwise', () => {
    expect(checkOutput(' \n\t ', 'Paris').reason).toBe(
      'the final answer does not contain "Paris" (the answer is empty)',
    );
    expect(checkOutput('Lyon', 'Paris').reason).not.toContain('empty');
  });

  it('folds case by lowercasing, so "Masse" is not found in "Maße" (uppercasing would make both MASSE)', () => {
    expect(checkOutput('Die Maße des Tisches', 'masse').passed).toBe(false);
    expect(checkOutput('DIE MAßE', 'maße').passed).toBe(true);
  });

  it('compares canonically equivalent text as equal: NFC and NFD spellings of "café" match either way', () => {
    const nfc = 'caf\u00e9';
    const nfd = 'cafe\u0301';
    expect(checkOutput(`Un ${nfd} noir`, nfc).passed).toBe(true);
    expect(checkOutput(`Un ${nfc} noir`, nfd).passed).toBe(true);
    expect(checkOutput(nfd, nfc, { mode: 'equals', caseSensitive: true }).passed).toBe(true);
  });

  it('ignores zero-width characters on both sides (a model that emits Pa\u200bris still answers Paris)', () => {
    for (const zw of ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff'])
      expect(checkOutput(`The capital is Pa${zw}ris.`, 'Paris').passed).toBe(true);
    expect(checkOutput('\ufeff42', '42', { mode: 'equals' }).passed).toBe(true);
    expect(checkOutput('Lyon', 'Pa\u200bris').passed).toBe(false);
  });

  it('clips a long expected text or answer in the reason to 120 characters', () => {
    const expected = 'x'.repeat(200);
    expect(checkOutput('y', expected).reason).toBe(`the final answer does not contain "${'x'.repeat(117)}..."`);
    const exactly120 = 'z'.repeat(120);
    expect(checkOutput('y', exactly120).reason).toBe(`the final answer does not contain "${exactly120}"`);
    expect(checkOutput(`${'a'.repeat(150)}`, 'b', { mode: 'equals' }).reason).toBe(
      `the final answer "${'a'.repeat(117)}..." does not equal "b"`,
    );
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

  it('refuses patterns that are too long, do not compile, refer back or look around, saying why', () => {
    expect(regexProblem('a'.repeat(MAX_PATTERN_LENGTH + 1))).toMatch(/longer than/);
    expect(regexProblem('(unclosed')).toMatch(/does not compile/);
    expect(regexProblem('(a)\\1')).toMatch(/back-references/);
    expect(regexProblem('(?<x>a)\\k<x>')).toMatch(/back-references/);
    expect(regexProblem('foo(?=bar)')).toMatch(/lookahead/);
    expect(regexProblem('foo(?!bar)')).toMatch(/lookahead/);
    expect(regexProblem('(?<=foo)bar')).toMatch(/lookbehind/);
    expect(regexProblem('(?<!foo)bar')).toMatch(/lookbehind/);
    expect(regexProblem('a{1001}')).toMatch(/linear-time engine/);
    // nested quantifiers are fine now: the engine is linear-time whatever the pattern
    for (const ok of [
      '(ab)+',
      '(a+)+$',
      '(a*)*b',
      '(a|a)*$',
      '[(+)]+',
      '^\\d{3}-\\d{4}$',
      '(?<word>\\w+)!',
      '\\u{1F600}',
    ])
      expect(regexProblem(ok), ok).toBeNull();
    // the check itself refuses the same patterns rather than running them
    expect(checkOutput('foobar', 'foo(?=bar)', { mode: 'regex' })).toMatchObject({
      passed: false,
      reason: expect.stringMatching(/lookahead/),
    });
  });

  it('matches in linear time: an ambiguous pattern on a 100,000-character answer is answered', () => {
    const answer = `${'a'.repeat(100_000)}!`;
    expect(checkOutput(answer, '^(a|a)*$', { mode: 'regex' })).toEqual({
      mode: 'regex',
      passed: false,
      expected: '^(a|a)*$',
      reason: 'the final answer does not match /^(a|a)*$/',
    });
    expect(checkOutput(answer, '(a|a)*!$', { mode: 'regex' }).passed).toBe(true);
    expect(checkOutput(answer, '^(a+)+$', { mode: 'regex' }).passed).toBe(false);
    expect(checkOutput('a'.repeat(100_000), '^(a+)+$', { mode: 'regex' }).passed).toBe(true);
  });

  it('keeps the JavaScript u-flag meaning: code points, Unicode case folding, \\s as JavaScript reads it', () => {
    const passes = (answer: string, pattern: string, caseSensitive?: boolean) =>
      checkOutput(answer, pattern, { mode: 'regex', caseSensitive }).passed;
    expect(passes('😀', '^.$')).toBe(true);
    expect(passes('😀', '^\\u{1F600}$')).toBe(true);
    expect(passes('😀', '^\\uD83D\\uDE00$')).toBe(true);
    expect(passes('Éte', 'été')).toBe(false);
    expect(passes('ÉTÉ', 'été')).toBe(true);
    expect(passes('ÉTÉ', 'été', true)).toBe(false);
    expect(passes('Ωμέγα', '^\\p{Lu}\\p{Ll}+$', true)).toBe(true);
    // \s and \S are JavaScript's (Unicode spaces), not RE2's ASCII ones; `.` stops at line terminators
    expect(passes('total:\u00a012', '^total:\\s\\d+$')).toBe(true);
    expect(passes('a\u202fb', 'a[\\s]b')).toBe(true);
    expect(passes('a\u202fb', 'a\\Sb')).toBe(false);
    expect(passes('a\rb', 'a.b')).toBe(false);
    expect(passes('a\bb', 'a[\\b]b')).toBe(true);
    expect(passes('Order 7', 'order (?<n>\\d)')).toBe(true);
  });

  it('bounds the work: an answer past the searched length, or a pattern too large for the answer, fails with why', () => {
    const long = checkOutput('a'.repeat(MAX_REGEX_ANSWER_LENGTH + 1), 'a', { mode: 'regex' });
    expect(long).toMatchObject({
      passed: false,
      reason: expect.stringMatching(/longer than .* a regex check searches/),
    });
    // a pattern of about 3,000 instructions on a 100,000-character answer: past the work a check may do
    const big = checkOutput('x'.repeat(100_000), '(\\p{L}|\\p{N}|.){999}$', { mode: 'regex' });
    expect(big).toMatchObject({ passed: false, reason: expect.stringMatching(/too large to search/) });
    expect(checkOutput('x'.repeat(1_000), '(\\p{L}|\\p{N}|.){999}$', { mode: 'regex' }).passed).toBe(true);
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

  it('looks at every JSON value of the answer: a citation like [1] before the JSON does not hide it', () => {
    const check = { mode: 'json-subset' } as const;
    const answer = 'According to the docs [1], the result is:\n```json\n{"city": "Paris", "country": "FR"}\n```';
    expect(checkOutput(answer, '{"city":"Paris"}', check).passed).toBe(true);
    expect(checkOutput('[1] and [2] say {"a": {"b": 1}}', '{"a":{"b":1}}', check).passed).toBe(true);
    // values nested inside another value are part of it, not candidates of their own
    expect(checkOutput('{"outer": {"city": "Paris"}}', '{"city":"Paris"}', check).passed).toBe(false);
    expect(checkOutput('[1] then {"city": "Lyon"}', '{"city":"Paris"}', check)).toMatchObject({
      passed: false,
      reason: expect.stringMatching(/^none of the final answer's 2 JSON values contains \{"city":"Paris"\}/) as unknown,
    });
  });

  it('isJsonSubset compares types strictly', () => {
    expect(isJsonSubset({ a: 1 }, { a: '1' })).toBe(false);
    expect(isJsonSubset({ a: null }, { a: null })).toBe(true);
    expect(isJsonSubset({ a: null }, {})).toBe(false);
    expect(isJsonSubset([], {})).toBe(false);
    expect(isJsonSubset({}, [])).toBe(false);
  });

  it('finds the JSON in one pass: 40,000 unclosed brackets are answered, with why the check failed', () => {
    const check = { mode: 'json-subset' as const };
    expect(checkOutput('['.repeat(40_000), '[]', check)).toMatchObject({
      passed: false,
      reason: 'the final answer holds no JSON value',
    });
    // unclosed brackets before the JSON: the JSON is still found
    expect(checkOutput(`${'['.repeat(40_000)} {"ok": true}`, '{"ok":true}', check).passed).toBe(true);
    expect(checkOutput(`${'{'.repeat(40_000)}"x": [1]}`, '{"x": [1]}', check).passed).toBe(true);
    // an opening bracket inside a string of an earlier candidate, as before
    expect(extractJson('a [x] then {"k": "v"} and [1]')).toEqual({ k: 'v' });
    expect(extractJson('{ oops [1,2] }')).toEqual([1, 2]);
  });

  it('bounds the depth: an answer nested deeper than the limit fails the check, never throws', () => {
    const check = { mode: 'json-subset' as const };
    const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    expect(checkOutput(deep(20_000), deep(20_000), check)).toMatchObject({
      passed: false,
      reason: expect.stringMatching(new RegExp(`expectedOutput is JSON nested deeper than ${MAX_JSON_DEPTH} levels`)),
    });
    expect(checkOutput(deep(20_000), '[[["x"]]]', check)).toMatchObject({
      passed: false,
      reason: expect.stringMatching(
        new RegExp(`the final answer's JSON is nested deeper than ${MAX_JSON_DEPTH} levels`),
      ),
    });
    expect(checkOutput(`Result: ${deep(40_000)}`, '[]', check)).toMatchObject({
      passed: false,
      reason: expect.stringMatching(/nested deeper than/),
    });
    const objects = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
    expect(checkOutput(objects, objects, check).passed).toBe(false);
    expect(checkOutput(deep(MAX_JSON_DEPTH), deep(MAX_JSON_DEPTH), check).passed).toBe(true);
    expect(checkOutput(deep(MAX_JSON_DEPTH + 1), '[]', check).passed).toBe(false);
  });

  it('bounds the candidates parsed: many bracketed spans that are not JSON fail the check with why', () => {
    const result = checkOutput('{x} '.repeat(50_000), '{}', { mode: 'json-subset' });
    expect(result).toMatchObject({ passed: false, reason: expect.stringMatching(/holds no JSON value/) });
    // nested spans that are not JSON: each is a candidate, parsed at most a bounded number of times
    const nested = `${'[x'.repeat(20_000)}${']'.repeat(20_000)}`;
    expect(checkOutput(nested, '[]', { mode: 'json-subset' }).passed).toBe(false);
  });
});

describe('check budgets', () => {
  it("past an iteration's or a run's budget, the next checks fail saying so, without running", () => {
    let clock = 0;
    const now = () => clock;
    const slowCheck = () => {
      clock += 600;
      return checkOutput('Paris', 'paris');
    };
    const run = new RunCheckBudgets(1_500).forRun('run_1');
    const iteration = () => [new CheckBudget(1_000, 'this iteration'), run];
    const shown = { mode: 'contains' as const, expected: 'paris' };
    const first = iteration();
    expect(budgetedCheck(first, shown, slowCheck, now).passed).toBe(true);
    expect(budgetedCheck(first, shown, slowCheck, now).passed).toBe(true);
    let ran = false;
    expect(budgetedCheck(first, shown, () => ((ran = true), checkOutput('Paris', 'paris')), now)).toEqual({
      mode: 'contains',
      expected: 'paris',
      passed: false,
      reason: 'not checked: the output checks of this iteration took 1,200 ms, past their budget of 1,000 ms',
    });
    expect(ran).toBe(false);
    // the next iteration of the run starts a budget of its own; the run's is shared
    const second = iteration();
    expect(budgetedCheck(second, shown, slowCheck, now).passed).toBe(true);
    expect(budgetedCheck(second, shown, slowCheck, now)).toMatchObject({
      passed: false,
      reason: 'not checked: the output checks of this run took 1,800 ms, past their budget of 1,500 ms',
    });
    expect(new RunCheckBudgets(2_000).forRun('run_1').spentMs).toBe(0);
  });
});

describe('judge', () => {
  it('is not a deterministic check: checkOutput refuses it', () => {
    expect(() => checkOutput('Lyon', 'Paris', { mode: 'judge' })).toThrow(
      'a judge check is graded by a model (domain/evals/judge.ts), not by checkOutput',
    );
  });

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
      // found in one pass, depth bounded: a hostile judge reply is no verdict, not a stall or a stack overflow
      '['.repeat(40_000),
      `{"pass": true, "score": 1, "reason": ${'['.repeat(20_000)}${']'.repeat(20_000)}}`,
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

describe('outputCheckProblem', () => {
  it('needs an expectedOutput for any check, absent or null', () => {
    const problem = { path: 'outputCheck', message: 'an outputCheck needs an expectedOutput to check' };
    expect(outputCheckProblem(undefined, { mode: 'contains' })).toEqual(problem);
    expect(outputCheckProblem(null, { mode: 'contains' })).toEqual(problem);
    expect(outputCheckProblem(null, null)).toBeNull();
    expect(outputCheckProblem('Paris', { mode: 'contains' })).toBeNull();
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
    expect(messages({ query: 'q', expectedOutput: 'a(?=b)', outputCheck: { mode: 'regex' } })).toEqual([
      expect.stringMatching(/^expectedOutput: regex check: .*lookahead/),
    ]);
    expect(messages({ query: 'q', expectedOutput: '(a+)+$', outputCheck: { mode: 'regex' } })).toEqual([]);
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    expect(messages({ query: 'q', expectedOutput: deep, outputCheck: { mode: 'json-subset' } })).toEqual([
      `expectedOutput: json-subset check: expectedOutput is JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
    ]);
    expect(messages({ turns: [{ prompt: 'p', expectedOutput: deep, outputCheck: { mode: 'json-subset' } }] })).toEqual([
      `turns.0.expectedOutput: json-subset check: expectedOutput is JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
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
