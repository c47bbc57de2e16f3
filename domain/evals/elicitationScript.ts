import type { ElicitationAnswer } from '../mcp/clientProfile.js';
import type { CaseElicitation } from './case.js';

/** What a script knows of a question: its name, when its server gave it one (2026-07-28: the inputRequests key). */
export interface AskedQuestion {
  name?: string;
}

/**
 * A script's answer to one question: the answer and, for a script of several, which of them (`entry`, its index in
 * `answers`); or none (`unscripted`), which fails the iteration.
 */
export type ScriptChoice = { kind: 'answer'; answer: ElicitationAnswer; entry?: number } | { kind: 'unscripted' };

/**
 * One elicitation script as "the user" follows it through an iteration. A single answer answers every question. A
 * script of answers answers a question by the answer naming it, as often as it is asked (the same question of a
 * tool called twice gets the same answer), else by the next answer that names no question, each used once in order
 * (a 2025-11-25 server's questions have no name, so that is how they are answered). A question neither matches has
 * no answer: a server asked something the case's author did not expect, which a silent decline would hide.
 */
export class ElicitationScript {
  /** the next unnamed answer to give */
  #next = 0;

  constructor(private readonly given: CaseElicitation) {}

  answer(question: AskedQuestion): ScriptChoice {
    if (!('answers' in this.given)) return { kind: 'answer', answer: this.given };
    const { answers } = this.given;
    if (question.name !== undefined) {
      const entry = answers.findIndex((a) => a.question === question.name);
      if (entry !== -1) return chosen(answers, entry);
    }
    while (this.#next < answers.length && answers[this.#next].question !== undefined) this.#next++;
    if (this.#next >= answers.length) return { kind: 'unscripted' };
    return chosen(answers, this.#next++);
  }
}

function chosen(answers: (ElicitationAnswer & { question?: string })[], entry: number): ScriptChoice {
  const { question: _named, ...answer } = answers[entry];
  return { kind: 'answer', answer: answer as ElicitationAnswer, entry };
}

/**
 * The scripts of one iteration: a turn's own answers the questions asked during that turn's tool calls (instead of
 * the case's, not merged with it); the case's answers the other turns, its order running on across them. Without
 * either for a turn, the server's client profile answers, as it does without any script.
 */
export class IterationScripts {
  readonly #case: ElicitationScript | undefined;
  readonly #turns: (ElicitationScript | undefined)[];
  /** whether any question of the iteration is scripted: then its calls declare elicitation, as a case answer does */
  readonly scripted: boolean;

  constructor(caseScript: CaseElicitation | null | undefined, turnScripts: (CaseElicitation | null | undefined)[]) {
    this.#case = caseScript ? new ElicitationScript(caseScript) : undefined;
    this.#turns = turnScripts.map((given) => (given ? new ElicitationScript(given) : undefined));
    this.scripted = this.#case !== undefined || this.#turns.some((s) => s !== undefined);
  }

  /** The answer for a question asked during turn `turnIndex`, and whose script gave it; undefined: no script. */
  answer(turnIndex: number, question: AskedQuestion): (ScriptChoice & { script: 'case' | 'turn' }) | undefined {
    const turn = this.#turns[turnIndex];
    if (turn) return { ...turn.answer(question), script: 'turn' };
    if (this.#case) return { ...this.#case.answer(question), script: 'case' };
    return undefined;
  }
}
