/**
 * The cases a model drafts, and the check each must pass before it is saved: the shape, real tool names,
 * arguments valid against the tool's input schema, and a negative case expecting no call. No I/O; each argument
 * check runs in a turn of the event loop of its own (a server's schema may hold it for SCHEMA_CHECK_MS).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { z } from 'zod';
import { unstorableCharacter } from '../../columnLimits.js';
import { closestName } from '../../closestName.js';
import { ArgumentChecker } from './argumentCheck.js';
import type { SuiteTool } from './suiteTools.js';

/** Expected calls one drafted case may list. */
export const MAX_DRAFT_CALLS = 10;

const draftCallSchema = z.object({
  toolName: z.string().min(1).max(200),
  arguments: z.record(z.string(), z.unknown()).optional(),
});

/** Text a model wrote, refused when Postgres could not store it (a NUL, a lone surrogate), as request bodies are. */
const storableText = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .refine((text) => unstorableCharacter(text) === undefined, {
      message: 'holds a character that cannot be stored (NUL or a lone surrogate)',
    });

export const caseDraftSchema = z.object({
  title: storableText(200),
  query: storableText(5_000),
  isNegative: z.boolean(),
  expectedToolCalls: z.array(draftCallSchema).max(MAX_DRAFT_CALLS),
});

/** What the model is asked to answer; its JSON Schema goes to the provider as the output format. */
export const caseDraftsSchema = z.object({ cases: z.array(caseDraftSchema) });

export const caseDraftsJsonSchema = z.toJSONSchema(caseDraftsSchema, { target: 'draft-7' }) as Record<string, unknown>;

export interface CaseDraft {
  title: string;
  query: string;
  isNegative: boolean;
  expectedToolCalls: { toolName: string; arguments: Record<string, unknown> }[];
}

export interface SkippedDraft {
  title: string;
  error: string;
}

export interface CheckedDrafts {
  drafts: CaseDraft[];
  skipped: SkippedDraft[];
}

/**
 * Sorts the model's drafts into the ones that can be saved and the ones that cannot, with the reason. Drafts past
 * `count` are skipped too: the caller asked for that many. A draft repeating an earlier one (same title and query,
 * the case identity) is skipped as a duplicate.
 */
export async function checkDrafts(
  answer: readonly unknown[],
  tools: readonly SuiteTool[],
  count: number,
): Promise<CheckedDrafts> {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const checker = new ArgumentChecker();
  const drafts: CaseDraft[] = [];
  const skipped: SkippedDraft[] = [];
  const seen = new Set<string>();
  for (const [index, raw] of answer.entries()) {
    const title = titleOf(raw, index);
    if (index >= count) {
      skipped.push({ title, error: `beyond the ${count} case${count === 1 ? '' : 's'} asked for` });
      continue;
    }
    const verdict = await checkDraft(raw, byName, checker);
    if ('error' in verdict) {
      skipped.push({ title, error: verdict.error });
      continue;
    }
    const identity = `${verdict.title}\u0000${verdict.query}`;
    if (seen.has(identity)) {
      skipped.push({ title, error: 'duplicate of an earlier draft (same title and query)' });
      continue;
    }
    seen.add(identity);
    drafts.push(verdict);
  }
  return { drafts, skipped };
}

async function checkDraft(
  raw: unknown,
  tools: Map<string, SuiteTool>,
  checker: ArgumentChecker,
): Promise<CaseDraft | { error: string }> {
  const parsed = caseDraftSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { error: `not a case draft: ${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message}` };
  }
  const draft = parsed.data;
  if (draft.isNegative && draft.expectedToolCalls.length > 0) {
    return { error: 'a negative case expects that no tool is called, but the draft lists expected calls' };
  }
  if (!draft.isNegative && draft.expectedToolCalls.length === 0) {
    return { error: 'a normal case expects at least one tool call, and the draft lists none' };
  }
  const calls: CaseDraft['expectedToolCalls'] = [];
  for (const call of draft.expectedToolCalls) {
    const tool = tools.get(call.toolName);
    if (!tool) {
      const meant = closestName(call.toolName, tools.keys());
      return {
        error: `no tool \`${call.toolName}\` on the suite's servers${meant ? ` (did you mean \`${meant}\`?)` : ''}`,
      };
    }
    const args = call.arguments ?? {};
    // Other requests get their turn between two checks, however many drafts and calls the model wrote.
    await nextTurn();
    const verdict = checker.check(tool.name, tool.inputSchema, args);
    if (!verdict.ok) return { error: verdict.error };
    calls.push({ toolName: tool.name, arguments: args });
  }
  return { title: draft.title, query: draft.query, isNegative: draft.isNegative, expectedToolCalls: calls };
}

/** A skipped draft's title for the report: its own when it has one. */
function titleOf(raw: unknown, index: number): string {
  const title = raw !== null && typeof raw === 'object' ? (raw as { title?: unknown }).title : undefined;
  return typeof title === 'string' && title.trim() !== '' ? title.trim().slice(0, 200) : `draft ${index + 1}`;
}
