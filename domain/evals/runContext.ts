import type { RunSetupStore } from '../ports/runSetupStore.js';
import type { SecretBox } from '../ports/secretBox.js';
import type { HostedModelCatalog, ModelAccess } from '../models/catalog.js';
import { priceLookup, type PriceLookup } from '../models/prices.js';
import type { SavedServer } from '../catalog/server.js';
import type { Run } from './run.js';
import type { JudgeModel } from './suite.js';

/** Everything an iteration of a run needs besides its own case, loaded once per batch of iterations. */
export interface RunContext {
  run: Run;
  servers: SavedServer[];
  modelAccess: ModelAccess;
  /** the suite's judge model for `judge` output checks, as the suite says now; null: each case's own model */
  judgeModel: JudgeModel | null;
  /** the organization's model prices (its own over the defaults), read with the context: what an iteration costs */
  prices: PriceLookup;
}

/** What loading a run's context reads (and, for a re-grade, its batches: the recorded turns). */
export type RunContextReads = Pick<
  RunSetupStore,
  'run' | 'savedServers' | 'providerKeys' | 'suite' | 'modelPrices' | 'recordedPrompts'
>;

export async function loadRunContext(
  deps: { setup: RunContextReads; box: SecretBox; catalog: HostedModelCatalog },
  runId: string,
): Promise<RunContext | undefined> {
  const { setup } = deps;
  const run = await setup.run(runId);
  if (!run) return undefined;
  const [servers, orgProviderKeys, suite, prices] = await Promise.all([
    setup.savedServers(run.projectId, run.serverIds),
    setup.providerKeys(run.organizationId),
    setup.suite(run.projectId, run.suiteId, { includeDeleted: true }),
    setup.modelPrices(run.organizationId),
  ]);
  return {
    run,
    // keep the run's server order: the first server wins a tool-name clash. A run started with a host declares
    // the host's client profile to every server instead of the server's own.
    servers: run.serverIds
      .map((id) => servers.find((s) => s.id === id))
      .filter((s): s is SavedServer => s !== undefined)
      .map((server) => (run.clientProfile ? { ...server, clientProfile: run.clientProfile } : server)),
    modelAccess: { catalog: deps.catalog, orgProviderKeys, modelApiKeys: deps.box.decryptJson(run.modelKeysEnc, {}) },
    judgeModel: suite?.judgeModel ?? null,
    prices: priceLookup(prices),
  };
}
