import { OperationFailure } from '../../failures.js';
import type { McpOperations } from '../../mcp/index.js';
import type { ChatModel } from '../../models/providers.js';
import { checkDrafts, type CaseDraft, type SkippedDraft } from './drafts.js';
import { askModelForDrafts, type ModelDrafts } from './modelDrafts.js';
import { buildGenerationPrompt } from './prompt.js';
import { listSuiteTools, type UnreachableServer } from './suiteTools.js';
import type { SavedServer } from '../../catalog/server.js';

/** Cases one generation may ask for. */
export const MAX_GENERATED_CASES = 20;
export const DEFAULT_GENERATED_CASES = 5;

export interface DraftRequest {
  servers: readonly SavedServer[];
  model: ChatModel;
  count: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface DraftOutcome {
  promptVersion: string;
  /** drafts that passed every check, in the model's order */
  drafts: CaseDraft[];
  skipped: SkippedDraft[];
  tools: { listed: number; inPrompt: number };
  unreachableServers: UnreachableServer[];
  usage: ModelDrafts['usage'];
}

/**
 * Drafts up to `count` cases for a suite: its servers' tools (as an eval run lists them), the versioned prompt
 * with them, one structured-output call of the model, and the check of every draft against the tools.
 */
export async function generateCaseDrafts(deps: { mcp: McpOperations }, request: DraftRequest): Promise<DraftOutcome> {
  if (!Number.isInteger(request.count) || request.count < 1 || request.count > MAX_GENERATED_CASES) {
    throw new RangeError(`count must be an integer from 1 to ${MAX_GENERATED_CASES}`);
  }
  const { tools, unreachable } = await listSuiteTools(deps.mcp, request.servers, request.signal);
  if (tools.length === 0) {
    throw new OperationFailure(
      'FEATURE_NOT_SUPPORTED',
      "the suite's servers list no tools: there is nothing to draft cases for",
      {
        reason: 'NO_TOOLS',
        ...(unreachable.length > 0 && { unreachableServers: unreachable }),
      },
    );
  }
  const prompt = buildGenerationPrompt(tools, request.count);
  const answer = await askModelForDrafts(request.model, prompt, {
    timeoutMs: request.timeoutMs,
    signal: request.signal,
  });
  // Checked against every listed tool, not only the ones the prompt had room for: a real tool is a real tool.
  const { drafts, skipped } = await checkDrafts(answer.drafts, tools, request.count);
  return {
    promptVersion: prompt.version,
    drafts,
    skipped,
    tools: { listed: tools.length, inPrompt: prompt.toolsInPrompt.length },
    unreachableServers: unreachable,
    usage: answer.usage,
  };
}
