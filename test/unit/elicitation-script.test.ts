import { describe, expect, it } from 'vitest';
import { createCaseBody, updateCaseBody } from '../../api/schemas/cases.js';
import { testCaseSchema } from '../../api/schemas/evals.js';
import { ElicitationScript, IterationScripts } from '../../domain/evals/elicitationScript.js';
import { limits } from '../../domain/limits.js';

const paris = { action: 'accept' as const, content: { city: 'Paris' } };
const monday = { action: 'accept' as const, content: { day: 'Monday' } };

describe('ElicitationScript: which scripted answer a question gets', () => {
  it('one answer (the field as it always was) answers every question, named or not, as often as asked', () => {
    const script = new ElicitationScript({ mode: 'defaults', content: { shots: 1 } });
    for (const question of [{}, { name: 'city' }, {}, { name: 'city' }])
      expect(script.answer(question)).toEqual({ kind: 'answer', answer: { mode: 'defaults', content: { shots: 1 } } });
  });

  it("answers a named question with the answer scripted for its name, whatever the answers' order", () => {
    const script = new ElicitationScript({
      answers: [
        { question: 'day', ...monday },
        { question: 'city', ...paris },
      ],
    });
    expect(script.answer({ name: 'city' })).toEqual({ kind: 'answer', answer: paris, entry: 1 });
    expect(script.answer({ name: 'day' })).toEqual({ kind: 'answer', answer: monday, entry: 0 });
    // The same question asked again (another call of the tool) gets the same answer.
    expect(script.answer({ name: 'city' })).toEqual({ kind: 'answer', answer: paris, entry: 1 });
  });

  it('answers questions without a matching name with the unnamed answers in order, each once', () => {
    const script = new ElicitationScript({
      answers: [paris, { action: 'decline' }, { question: 'day', ...monday }, { action: 'cancel' }],
    });
    // A 2025 server's request has no name; a 2026 question whose name is not scripted takes the next one too.
    expect(script.answer({})).toEqual({ kind: 'answer', answer: paris, entry: 0 });
    expect(script.answer({ name: 'confirm' })).toEqual({ kind: 'answer', answer: { action: 'decline' }, entry: 1 });
    // A named answer is never taken in order.
    expect(script.answer({})).toEqual({ kind: 'answer', answer: { action: 'cancel' }, entry: 3 });
    expect(script.answer({})).toEqual({ kind: 'unscripted' });
    expect(script.answer({ name: 'day' })).toEqual({ kind: 'answer', answer: monday, entry: 2 });
  });

  it('has no answer for a question it does not name when it has no unnamed answers left', () => {
    const script = new ElicitationScript({ answers: [{ question: 'city', ...paris }] });
    expect(script.answer({ name: 'day' })).toEqual({ kind: 'unscripted' });
    expect(script.answer({})).toEqual({ kind: 'unscripted' });
  });
});

describe("IterationScripts: the case's script and its turns'", () => {
  it('without any script answers nothing: the server profile answers, as before', () => {
    const scripts = new IterationScripts(null, [undefined, undefined]);
    expect(scripts.scripted).toBe(false);
    expect(scripts.answer(0, { name: 'city' })).toBeUndefined();
    expect(scripts.answer(1, {})).toBeUndefined();
  });

  it("a turn's script answers the questions of that turn; the case's answers the other turns, its order kept", () => {
    const scripts = new IterationScripts({ answers: [paris, { action: 'decline' }] }, [
      undefined,
      { answers: [{ question: 'city', action: 'accept', content: { city: 'Rome' } }] },
      undefined,
    ]);
    expect(scripts.scripted).toBe(true);
    expect(scripts.answer(0, { name: 'city' })).toEqual({ kind: 'answer', answer: paris, entry: 0, script: 'case' });
    expect(scripts.answer(1, { name: 'city' })).toMatchObject({
      answer: { content: { city: 'Rome' } },
      script: 'turn',
    });
    // Not merged: the turn's script has no answer for this, whatever the case's holds.
    expect(scripts.answer(1, { name: 'day' })).toEqual({ kind: 'unscripted', script: 'turn' });
    expect(scripts.answer(2, {})).toEqual({ kind: 'answer', answer: { action: 'decline' }, entry: 1, script: 'case' });
  });

  it('a script on one turn only: the other turns are answered by the profile', () => {
    const scripts = new IterationScripts(null, [undefined, { action: 'cancel' }]);
    expect(scripts.scripted).toBe(true);
    expect(scripts.answer(0, {})).toBeUndefined();
    expect(scripts.answer(1, {})).toEqual({ kind: 'answer', answer: { action: 'cancel' }, script: 'turn' });
  });
});

describe("a case's elicitation field at the edge", () => {
  const parse = (elicitation: unknown, extra: Record<string, unknown> = {}) =>
    testCaseSchema.safeParse({ title: 't', query: 'q', elicitation, ...extra });
  const caseBody = (elicitation: unknown) => createCaseBody.safeParse({ title: 't', prompt: 'q', elicitation });

  it('takes one answer, or a script of answers by name or in order', () => {
    expect(parse({ action: 'decline' }).success).toBe(true);
    const script = { answers: [{ question: 'city', ...paris }, { action: 'cancel' }, { mode: 'defaults' }] };
    const parsed = parse(script);
    expect(parsed.success, JSON.stringify(parsed.error)).toBe(true);
    expect(parsed.data?.elicitation).toEqual(script);
    expect(caseBody(script).success).toBe(true);
    expect(updateCaseBody.safeParse({ elicitation: script }).success).toBe(true);
  });

  it("takes a script on a turn, and keeps it in the turn's stored form", () => {
    const turns = [
      { prompt: 'first', elicitation: { answers: [{ question: 'city', ...paris }] } },
      { prompt: 'second', elicitation: { action: 'decline' } },
    ];
    const parsed = testCaseSchema.safeParse({ title: 't', turns });
    expect(parsed.success, JSON.stringify(parsed.error)).toBe(true);
    expect(parsed.data?.turns?.map((t) => t.elicitation)).toEqual(turns.map((t) => t.elicitation));
    expect(createCaseBody.safeParse({ title: 't', turns }).success).toBe(true);
  });

  it('refuses what no script can mean, and anything past its bounds', () => {
    const refused: unknown[] = [
      { answers: [] },
      { answers: Array.from({ length: limits.scriptedAnswers + 1 }, () => ({ action: 'decline' })) },
      { answers: [{ question: '', action: 'decline' }] },
      { answers: [{ question: 'q'.repeat(201), action: 'decline' }] },
      { answers: [{ question: 'city', action: 'accept' }] },
      { answers: [{ question: 'city', action: 'maybe' }] },
      { answers: [{ question: 'city', action: 'decline', content: { city: 'Paris' } }] },
      { answers: [{ question: 'city', action: 'decline', when: 'always' }] },
      { answers: [{ action: 'accept', content: { city: 'x'.repeat(10_001) } }] },
      { answers: { city: paris } },
      { answers: [paris], extra: true },
      { answers: [{ question: 7, action: 'decline' }] },
      [paris],
    ];
    for (const elicitation of refused) {
      expect(parse(elicitation).success, JSON.stringify(elicitation).slice(0, 200)).toBe(false);
      expect(caseBody(elicitation).success, JSON.stringify(elicitation).slice(0, 200)).toBe(false);
    }
    expect(
      testCaseSchema.safeParse({ title: 't', turns: [{ prompt: 'p', elicitation: { answers: [] } }] }).success,
    ).toBe(false);
    expect(
      parse({ answers: Array.from({ length: limits.scriptedAnswers }, () => ({ action: 'decline' })) }).success,
    ).toBe(true);
  });
});
