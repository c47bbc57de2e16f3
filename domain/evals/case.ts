import type { ElicitationAnswer } from '../mcp/clientProfile.js';
import type { ExpectedToolCall } from './scoring.js';
import type { ModelChoice } from './suite.js';

/** How a case's expectedOutput is checked (domain/evals/outputCheck.ts); null: `contains`. */
export interface StoredOutputCheck {
  mode: 'contains' | 'equals' | 'regex' | 'json-subset' | 'judge';
  caseSensitive?: boolean;
  rubric?: string;
}

/** One user prompt of a multi-turn case, with what that turn expects. */
export interface StoredTurn {
  prompt: string;
  expectedToolCalls: ExpectedToolCall[];
  expectedOutput?: string;
  outputCheck?: StoredOutputCheck;
  /** answers the questions servers ask during this turn's tool calls, instead of the case's `elicitation` */
  elicitation?: CaseElicitation;
}

/** One answer of an elicitation script: to the question named `question` (2026-07-28 names them), else in order. */
export type ScriptedElicitationAnswer = ElicitationAnswer & { question?: string };

/**
 * How a case (or one of its turns) answers the elicitation questions servers ask in its iterations: one answer for
 * every question, or a script of answers by question name or in order (domain/evals/elicitationScript.ts).
 */
export type CaseElicitation = ElicitationAnswer | { answers: ScriptedElicitationAnswer[] };

/**
 * How the agent loop runs a case: its system prompt, sampling, steps, tool choice. A type, not an interface: it is
 * read as a plain record too (the case's reply).
 */
export type CaseAdvancedConfig = {
  system?: string;
  temperature?: number;
  maxSteps?: number;
  toolChoice?: 'auto' | 'required' | 'none';
  failOnToolError?: boolean;
};

/** An eval case: a prompt (or a conversation) a suite runs, and what it expects the model to do. */
export interface Case {
  id: string;
  suiteId: string;
  title: string;
  query: string;
  /** iterations per run */
  runs: number;
  model: string | null;
  provider: string | null;
  /** set when the case compares several models (model/provider hold the first) */
  models: ModelChoice[] | null;
  expectedToolCalls: ExpectedToolCall[];
  /** passes when the model calls none of the expected tools */
  isNegativeTest: boolean;
  expectedOutput: string | null;
  outputCheck: StoredOutputCheck | null;
  /** a conversation's prompts (then `query` is the first one and `expectedToolCalls` all turns' in order) */
  turns: StoredTurn[] | null;
  scenario: string | null;
  advancedConfig: CaseAdvancedConfig | null;
  matchOptions: Record<string, unknown> | null;
  elicitation: CaseElicitation | null;
  externalCaseId: string | null;
  /**
   * created by ingest: it holds reported results only and runs leave it out (a report names no prompt or model a
   * run could use). Writing the case (an inline test with its title and prompt, a PATCH) makes it runnable.
   */
  ingested: boolean;
  /** a deleted case keeps its row: past iterations point at it (and a running run still reads its options) */
  deletedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A case as its author writes it (a new case, or one of a suite's tests written by title + prompt). */
export interface CaseInput {
  title: string;
  query: string;
  runs?: number;
  model?: string;
  provider?: string;
  /** several models: each runs every iteration of the case; `model`/`provider` are then the first one's */
  models?: ModelChoice[];
  expectedToolCalls?: { toolName: string; arguments?: Record<string, unknown> }[];
  isNegativeTest?: boolean;
  expectedOutput?: string;
  outputCheck?: StoredOutputCheck;
  turns?: StoredTurn[];
  scenario?: string;
  advancedConfig?: Record<string, unknown>;
  matchOptions?: Record<string, unknown>;
  elicitation?: CaseElicitation;
  externalCaseId?: string;
}

/** A change to a case: a field left undefined stays; null clears an optional one. */
export interface CaseChanges {
  title?: string;
  query?: string;
  runs?: number;
  model?: string | null;
  provider?: string | null;
  /** a list replaces the case's model(s); null (or a lone model/provider change) leaves one model */
  models?: ModelChoice[] | null;
  expectedToolCalls?: CaseInput['expectedToolCalls'];
  isNegativeTest?: boolean;
  expectedOutput?: string | null;
  outputCheck?: CaseInput['outputCheck'] | null;
  turns?: CaseInput['turns'] | null;
  scenario?: string | null;
  advancedConfig?: Record<string, unknown> | null;
  matchOptions?: Record<string, unknown> | null;
  elicitation?: CaseInput['elicitation'] | null;
}

/** What writing several cases at once did: each one committed, or failed with its reason (the others still commit). */
export interface CaseUpsert {
  committed: { id: string; name: string }[];
  failed: { id?: string; name: string; error: string }[];
}
