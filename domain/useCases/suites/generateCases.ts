import type { ServerDirectory } from '../../ports/serverDirectory.js';
import { requireServers, requireServerSelection } from '../../evals/serverSelection.js';
import type { SuiteStore } from '../../ports/suiteStore.js';
import { requireVisibleProject } from '../../access/visibleProject.js';
import type { SkippedDraft } from '../../evals/caseGeneration/drafts.js';
import { generateCaseDrafts, type DraftOutcome } from '../../evals/caseGeneration/generateDrafts.js';
import {
  chooseGenerationModel,
  generatedCaseModel,
  resolveGenerationModel,
} from '../../evals/caseGeneration/generationModel.js';
import { saveDrafts } from '../../evals/caseGeneration/saveDrafts.js';
import { notFound, refused } from '../../failures.js';
import { hostClientProfile, requireAllowedRoots, type McpOperations } from '../../mcp/index.js';
import type { HostedModelCatalog } from '../../models/catalog.js';
import { createLanguageModel } from '../../models/providers.js';
import type { Principal } from '../../principal.js';
import type { Case } from '../../evals/case.js';

export interface GeneratedCases {
  /** the model that drafted the cases, and its provider */
  generationModel: string;
  provider: string;
  promptVersion: string;
  /** the drafts saved as cases of the suite, in the model's order */
  created: Case[];
  /** drafts not saved, with the reason (checks failed, duplicates, a case the suite already has) */
  skipped: SkippedDraft[];
  tools: DraftOutcome['tools'];
  unreachableServers: DraftOutcome['unreachableServers'];
  usage: DraftOutcome['usage'];
}

/**
 * Drafts cases from the suite servers' tools with a model (default: the suite's; the key follows the rule of eval
 * runs) and saves the valid ones as cases of the suite. The servers are asked as the suite's runs ask them: with its
 * host's client profile when it has one. Nothing is saved when the model fails.
 */
export function generateCases(deps: {
  suites: SuiteStore;
  servers: ServerDirectory;
  mcp: McpOperations;
  catalog: HostedModelCatalog;
}) {
  return async function generateCases(input: {
    principal: Principal;
    projectId: string;
    suiteId: string;
    count: number;
    model?: string;
    provider?: string;
  }): Promise<GeneratedCases> {
    const { suites, mcp, catalog } = deps;
    const project = await requireVisibleProject(suites, input.principal, input.projectId);
    const suite = await suites.find(project.id, input.suiteId);
    if (!suite) throw notFound('eval suite', { suiteId: input.suiteId });
    if (suite.serverIds.length === 0) {
      throw refused('this suite has no saved server selection: there are no tools to draft cases from', {
        suiteId: suite.id,
        reason: 'NO_SAVED_SERVER_SELECTION',
      });
    }
    await requireServerSelection(deps.servers, project.id, suite.serverIds);
    const host = suite.hostId === null ? undefined : await suites.host(project.id, suite.hostId);
    const cases = await suites.cases(suite.id);
    const generation = chooseGenerationModel({ model: input.model, provider: input.provider }, suite, cases);
    const orgProviderKeys = await suites.providerKeys(input.principal.organizationId);
    const resolved = resolveGenerationModel(generation, { catalog, orgProviderKeys, modelApiKeys: {} });
    // The servers' secrets are opened once every check passed, for drafting, which connects to them.
    const servers = await requireServers(deps.servers, project.id, suite.serverIds);
    const profile = host ? hostClientProfile(host.config) : undefined;
    if (profile) requireAllowedRoots(profile, servers);
    const profiled = profile ? servers.map((s) => ({ ...s, clientProfile: profile })) : servers;

    const outcome = await generateCaseDrafts(
      { mcp },
      { servers: profiled, model: createLanguageModel(resolved), count: input.count },
    );
    const saved = await saveDrafts(suites, suite.id, outcome.drafts, generatedCaseModel(suite, cases, generation));
    return {
      generationModel: generation.model,
      provider: resolved.provider,
      promptVersion: outcome.promptVersion,
      created: saved.created,
      skipped: [...outcome.skipped, ...saved.skipped],
      tools: outcome.tools,
      unreachableServers: outcome.unreachableServers,
      usage: outcome.usage,
    };
  };
}

export type GenerateCases = ReturnType<typeof generateCases>;
