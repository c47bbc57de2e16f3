import type { ArgumentMatching, MatchOptions, ToolCallOrder } from './scoring.js';

/*
 * How a case says how its tool calls are matched, in the three vocabularies callers write: Runway's own (the
 * scorer's: `toolCallOrder: ignore|strict|superset`, `maxExtraToolCalls`, `argumentMatching`), the real product's
 * case routes (`toolCallOrder: any|in-order|exact`, `extraToolCalls: "unlimited"|N`, `arguments`) and the older
 * `allowExtraToolCalls: false`. Every spelling is read into the scorer's form before anything is stored, so a
 * written option is never dropped, and two spellings of one option that disagree are refused rather than guessed.
 */

export type PublicToolCallOrder = 'any' | 'in-order' | 'exact';

/** The real product's order names: `in-order` allows other calls in between (a subsequence), `exact` does not. */
export const PUBLIC_TOOL_CALL_ORDER: Readonly<Record<PublicToolCallOrder, ToolCallOrder>> = Object.freeze({
  any: 'ignore',
  'in-order': 'superset',
  exact: 'strict',
});

const INTERNAL_TO_PUBLIC_ORDER: Readonly<Record<ToolCallOrder, PublicToolCallOrder>> = Object.freeze({
  ignore: 'any',
  superset: 'in-order',
  strict: 'exact',
});

export interface MatchOptionsInput {
  toolCallOrder?: ToolCallOrder | PublicToolCallOrder;
  maxExtraToolCalls?: number | null;
  extraToolCalls?: 'unlimited' | number;
  allowExtraToolCalls?: boolean;
  argumentMatching?: ArgumentMatching;
  arguments?: ArgumentMatching;
}

/** The options as the real product's case routes write them. */
export interface PublicMatchOptions {
  toolCallOrder?: PublicToolCallOrder;
  extraToolCalls?: 'unlimited' | number;
  arguments?: ArgumentMatching;
}

export interface MatchOptionsConflict {
  /** the spellings given for one option, in the order they are listed above */
  fields: string[];
  message: string;
}

const describe = (value: number | null) =>
  value === null ? 'any number of extra calls' : `at most ${value} extra call${value === 1 ? '' : 's'}`;

/**
 * The scorer's options for what was written (only the options given: the scorer fills in its defaults), and the
 * options spelt twice with different meanings.
 */
export function normalizeMatchOptions(input: MatchOptionsInput): {
  options: Partial<MatchOptions>;
  conflicts: MatchOptionsConflict[];
} {
  const options: Partial<MatchOptions> = {};
  const conflicts: MatchOptionsConflict[] = [];

  if (input.toolCallOrder !== undefined) {
    options.toolCallOrder =
      (PUBLIC_TOOL_CALL_ORDER as Record<string, ToolCallOrder>)[input.toolCallOrder] ??
      (input.toolCallOrder as ToolCallOrder);
  }

  const extras: { field: string; value: number | null }[] = [];
  if (input.maxExtraToolCalls !== undefined)
    extras.push({ field: 'maxExtraToolCalls', value: input.maxExtraToolCalls });
  if (input.extraToolCalls !== undefined)
    extras.push({ field: 'extraToolCalls', value: input.extraToolCalls === 'unlimited' ? null : input.extraToolCalls });
  if (input.allowExtraToolCalls !== undefined)
    extras.push({ field: 'allowExtraToolCalls', value: input.allowExtraToolCalls ? null : 0 });
  if (extras.length > 0) {
    options.maxExtraToolCalls = extras[0].value;
    if (extras.some((e) => e.value !== extras[0].value)) {
      conflicts.push({
        fields: extras.map((e) => e.field),
        message: `${extras.map((e) => `\`${e.field}\` (${describe(e.value)})`).join(' and ')} disagree: give one of them`,
      });
    }
  }

  const matching = [
    ...(input.argumentMatching !== undefined ? [{ field: 'argumentMatching', value: input.argumentMatching }] : []),
    ...(input.arguments !== undefined ? [{ field: 'arguments', value: input.arguments }] : []),
  ];
  if (matching.length > 0) {
    options.argumentMatching = matching[0].value;
    if (matching.some((m) => m.value !== matching[0].value)) {
      conflicts.push({
        fields: matching.map((m) => m.field),
        message: `${matching.map((m) => `\`${m.field}\` (${m.value})`).join(' and ')} disagree: give one of them`,
      });
    }
  }
  return { options, conflicts };
}

/** Stored options (the scorer's form) in the real product's words, for the case routes' replies. */
export function toPublicMatchOptions(options: Partial<MatchOptions>): PublicMatchOptions {
  const view: PublicMatchOptions = {};
  if (options.toolCallOrder !== undefined) view.toolCallOrder = INTERNAL_TO_PUBLIC_ORDER[options.toolCallOrder];
  if (options.maxExtraToolCalls !== undefined)
    view.extraToolCalls = options.maxExtraToolCalls === null ? 'unlimited' : options.maxExtraToolCalls;
  if (options.argumentMatching !== undefined) view.arguments = options.argumentMatching;
  return view;
}
