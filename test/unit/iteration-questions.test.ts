import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { IterationScripts } from '../../domain/evals/elicitationScript.js';
import { IterationQuestions, UnscriptedQuestion } from '../../domain/evals/iterationQuestions.js';
import { answerElicitation } from '../../domain/mcp/elicitation.js';
import type { ElicitationAnswer } from '../../domain/mcp/clientProfile.js';

const cityForm = {
  type: 'object' as const,
  properties: { city: { type: 'string' as const } },
  required: ['city'],
};
const cityQuestion = (name?: string) => ({
  ...(name !== undefined && { name }),
  params: { mode: 'form', message: 'Which city?', requestedSchema: cityForm } as ElicitRequest['params'],
});
const call = { toolCallId: 'call_1', toolName: 'ask', promptIndex: 0 };

/** What clientRequests.ts does with the answer chosen: the given one, else the profile's (decline). */
const applying =
  (params: ElicitRequest['params']) =>
  (answer: ElicitationAnswer | undefined): ElicitResult =>
    answerElicitation(answer ?? { action: 'decline' }, params);

const ask = (questions: IterationQuestions, question = cityQuestion('city'), at = call) =>
  questions.forCall(at).answer(question, applying(question.params));

describe("IterationQuestions: an iteration's questions, answered and recorded", () => {
  it('answers with the script and records the question, where it came from and the answer', () => {
    let now = 40;
    const questions = new IterationQuestions(
      new IterationScripts({ answers: [{ question: 'city', action: 'accept', content: { city: 'Paris' } }] }, [
        undefined,
      ]),
      () => now,
    );
    expect(questions.forCall(call).declares).toBe(true);
    expect(ask(questions)).toEqual({ action: 'accept', content: { city: 'Paris' } });
    now = 55;
    expect(questions.unscripted).toBeUndefined();
    expect(questions.trace()).toEqual({
      questions: [
        {
          toolCallId: 'call_1',
          toolName: 'ask',
          promptIndex: 0,
          atMs: 40,
          name: 'city',
          mode: 'form',
          message: 'Which city?',
          requestedSchema: cityForm,
          answeredBy: 'script',
          script: 'case',
          scriptEntry: 0,
          action: 'accept',
          content: { city: 'Paris' },
        },
      ],
    });
  });

  it('without a script: the profile answers, nothing is declared, and the question is still recorded', () => {
    const questions = new IterationQuestions(new IterationScripts(null, [undefined]), () => 0);
    expect(questions.forCall(call).declares).toBe(false);
    expect(ask(questions, cityQuestion())).toEqual({ action: 'decline' });
    expect(questions.trace().questions).toEqual([
      expect.objectContaining({ answeredBy: 'policy', action: 'decline', message: 'Which city?' }),
    ]);
    expect(questions.trace().questions?.[0]).not.toHaveProperty('name');
  });

  it('refuses a question the script has no answer for, and remembers the first one as the failure', () => {
    const questions = new IterationQuestions(
      new IterationScripts({ answers: [{ question: 'city', action: 'decline' }] }, [undefined]),
      () => 0,
    );
    const dayQuestion = { name: 'day', params: { ...cityQuestion().params, message: 'Which day in Paris?' } };
    expect(() => ask(questions, dayQuestion as never, { ...call, toolName: 'ask_twice' })).toThrow(/day/);
    expect(() => ask(questions, cityQuestion(), { ...call, toolCallId: 'call_2' })).toThrow();
    const failure = questions.unscripted;
    expect(failure).toBeInstanceOf(UnscriptedQuestion);
    expect(failure?.message).toBe(
      `tool "ask_twice" asked question "day" ("Which day in Paris?") and the case's elicitation script has no answer for it`,
    );
    expect(failure?.question).toEqual({ name: 'day', toolName: 'ask_twice', message: 'Which day in Paris?' });
    expect(questions.trace().questions).toEqual([
      expect.objectContaining({ name: 'day', answeredBy: 'unanswered', error: expect.stringMatching(/no answer/) }),
      expect.objectContaining({ toolCallId: 'call_2', answeredBy: 'unanswered' }),
    ]);
  });

  it('records an answer that does not fit the form as the error the server got', () => {
    const questions = new IterationQuestions(
      new IterationScripts({ action: 'accept', content: { town: 'Paris' } }, [undefined]),
      () => 0,
    );
    expect(() => ask(questions)).toThrow(/does not fit/);
    expect(questions.unscripted).toBeUndefined();
    expect(questions.trace().questions).toEqual([
      expect.objectContaining({ answeredBy: 'script', error: expect.stringMatching(/does not fit/) }),
    ]);
    expect(questions.trace().questions?.[0]).not.toHaveProperty('action');
  });

  it('keeps each question bounded, and counts the questions past the most a trace keeps', () => {
    const questions = new IterationQuestions(new IterationScripts({ action: 'decline' }, [undefined]), () => 0, {
      questions: 3,
      bytes: 1_000,
    });
    const huge = {
      name: 'n'.repeat(5_000),
      params: {
        mode: 'form',
        message: 'm'.repeat(50_000),
        requestedSchema: {
          type: 'object',
          properties: Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`f${i}`, { type: 'string' }])),
        },
      } as ElicitRequest['params'],
    };
    for (let i = 0; i < 5; i++) expect(ask(questions, huge)).toEqual({ action: 'decline' });
    const traced = questions.trace();
    expect(traced.questions).toHaveLength(3);
    expect(traced.questionsOmitted).toBe(2);
    for (const question of traced.questions!) {
      expect(Buffer.byteLength(JSON.stringify(question))).toBeLessThanOrEqual(1_000);
      expect(question).toMatchObject({ toolCallId: 'call_1', answeredBy: 'script', action: 'decline' });
      expect(question.truncated).toEqual({ originalBytes: expect.any(Number), limitBytes: 1_000 });
    }
  });

  it('records a URL-mode question as declined without taking a scripted answer', () => {
    const questions = new IterationQuestions(
      new IterationScripts({ answers: [{ action: 'accept', content: { city: 'Paris' } }] }, [undefined]),
      () => 0,
    );
    const login = {
      name: 'login',
      params: { mode: 'url', message: 'Sign in', url: 'https://login.example.test/', elicitationId: 'e1' },
    } as never;
    expect(ask(questions, login)).toEqual({ action: 'decline' });
    expect(questions.trace().questions?.[0]).toMatchObject({
      mode: 'url',
      url: 'https://login.example.test/',
      answeredBy: 'policy',
      action: 'decline',
    });
    // The scripted answer is still there for the next question.
    expect(ask(questions)).toEqual({ action: 'accept', content: { city: 'Paris' } });
  });
});
