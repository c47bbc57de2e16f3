import { ProtocolError, ProtocolErrorCode, type ElicitResult } from '@modelcontextprotocol/client';
import { boundJson } from '../jsonSize.js';
import { limits } from '../limits.js';
import type { ElicitationHook, ElicitationQuestion } from '../mcp/index.js';
import type { IterationScripts } from './elicitationScript.js';
import type { PartTruncation } from './traceBounds.js';

/** The tool call a question came from. */
export interface QuestionSource {
  /** the model's id of the call (as in the trace's messages) */
  toolCallId: string;
  /** the tool as the model called it */
  toolName: string;
  /** the turn (`prompts[]` entry) the call was made in */
  promptIndex: number;
}

/** One question a server asked during an iteration, and what it was answered, as the trace keeps it. */
export interface TracedQuestion extends QuestionSource {
  /** ms since the iteration started */
  atMs: number;
  /** the name its server gave it (2026-07-28); absent for a 2025-11-25 server's request */
  name?: string;
  mode: 'form' | 'url';
  message: string;
  requestedSchema?: unknown;
  url?: string;
  /** a script's answer, the server profile's (no script, or URL mode), or none (the script had no answer) */
  answeredBy: 'script' | 'policy' | 'unanswered';
  /** whose script: the case's or the turn's */
  script?: 'case' | 'turn';
  /** which answer of the script (its index in `answers`); absent for a single answer */
  scriptEntry?: number;
  /** what the server got; absent when it got an error instead (`error`) */
  action?: ElicitResult['action'];
  content?: ElicitResult['content'];
  error?: string;
  /** present when the question was stored cut (limits.questionTraceBytes) */
  truncated?: PartTruncation;
}

/** The question a script had no answer for, in the iteration's failure (errorDetails). */
export interface UnansweredQuestion {
  name?: string;
  toolName: string;
  message: string;
}

/**
 * A server asked a question the case's script has no answer for: the iteration fails (not retried: the script and
 * the server would meet again), its error naming the question.
 */
export class UnscriptedQuestion extends Error {
  override readonly name = 'UnscriptedQuestion';

  constructor(
    readonly question: UnansweredQuestion,
    whose: string,
  ) {
    const asked =
      question.name !== undefined
        ? `question ${quoted(question.name, 100)} (${quoted(question.message, 200)})`
        : quoted(question.message, 200);
    super(`tool ${quoted(question.toolName, 100)} asked ${asked} and ${whose} elicitation script has no answer for it`);
  }
}

const quoted = (text: string, most: number) => JSON.stringify(text.length > most ? `${text.slice(0, most)}…` : text);

/** Room kept for a cut question's `truncated` marker, so that the question and its marker stay within the cap. */
const MARKER_BYTES = 96;

/**
 * The elicitation questions of one iteration: each tool call's questions answered by the iteration's scripts (else
 * by the server's client profile, as without a script), and every question recorded, bounded, for the trace. The
 * first question a script has no answer for is kept as the iteration's failure; the server gets an error for it.
 */
export class IterationQuestions {
  readonly #traced: TracedQuestion[] = [];
  #omitted = 0;
  #unscripted: UnscriptedQuestion | undefined;

  constructor(
    private readonly scripts: IterationScripts,
    /** ms since the iteration started */
    private readonly now: () => number,
    private readonly bounds: { questions: number; bytes: number } = {
      questions: limits.tracedQuestions,
      bytes: limits.questionTraceBytes,
    },
  ) {}

  /** The first question a script had no answer for, if any. */
  get unscripted(): UnscriptedQuestion | undefined {
    return this.#unscripted;
  }

  /** How one tool call's server questions are answered (ClientAnswers.elicit). */
  forCall(source: QuestionSource): ElicitationHook {
    return {
      declares: this.scripts.scripted,
      answer: (question, answerWith) => this.#answer(source, question, answerWith),
    };
  }

  /** What the trace keeps: the questions (absent when none was asked) and how many were past the bound. */
  trace(): { questions?: TracedQuestion[]; questionsOmitted?: number } {
    return {
      ...(this.#traced.length > 0 && { questions: this.#traced }),
      ...(this.#omitted > 0 && { questionsOmitted: this.#omitted }),
    };
  }

  #answer(
    source: QuestionSource,
    question: ElicitationQuestion,
    answerWith: Parameters<ElicitationHook['answer']>[1],
  ): ElicitResult {
    const { params } = question;
    const url = params.mode === 'url';
    const asked = {
      ...source,
      atMs: this.now(),
      ...(question.name !== undefined && { name: question.name }),
      mode: url ? ('url' as const) : ('form' as const),
      message: params.message,
      ...('requestedSchema' in params && { requestedSchema: params.requestedSchema }),
      ...('url' in params && typeof params.url === 'string' && { url: params.url }),
    };
    // A URL-mode question is declined whatever a script says (no one can open the page): it takes no answer of it.
    const choice = url ? undefined : this.scripts.answer(source.promptIndex, question);
    const by = choice && {
      script: choice.script,
      ...(choice.kind === 'answer' && choice.entry !== undefined && { scriptEntry: choice.entry }),
    };
    if (choice?.kind === 'unscripted') {
      const whose = choice.script === 'turn' ? `turn ${source.promptIndex + 1}'s` : "the case's";
      const failure = new UnscriptedQuestion(
        {
          ...(question.name !== undefined && { name: question.name }),
          toolName: source.toolName,
          message: params.message,
        },
        whose,
      );
      this.#unscripted ??= failure;
      const error = `${whose} elicitation script has no answer for this question`;
      this.#record({ ...asked, answeredBy: 'unanswered', ...by, error });
      // What the server is told: that the question stays unanswered, and why.
      throw new ProtocolError(ProtocolErrorCode.InternalError, `unanswered: ${failure.message}`);
    }
    const answeredBy = choice ? ('script' as const) : ('policy' as const);
    try {
      const result = answerWith(choice?.answer);
      this.#record({
        ...asked,
        answeredBy,
        ...by,
        action: result.action,
        ...(result.content !== undefined && { content: result.content }),
      });
      return result;
    } catch (error) {
      this.#record({ ...asked, answeredBy, ...by, error: error instanceof Error ? error.message : String(error) });
      throw error;
    }
  }

  #record(question: TracedQuestion): void {
    if (this.#traced.length >= this.bounds.questions) {
      this.#omitted++;
      return;
    }
    const { value, originalBytes, cut } = boundJson(question, this.bounds.bytes - MARKER_BYTES);
    this.#traced.push(cut ? { ...value, truncated: { originalBytes, limitBytes: this.bounds.bytes } } : question);
  }
}
