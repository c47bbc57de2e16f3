import { INGESTED_RESULTS_ONLY, planRun, runnableCases, type RunPlan } from './plan.js';
import type { RunSetupStore } from '../ports/runSetupStore.js';
import type { SecretBox } from '../ports/secretBox.js';
import { hostClientProfile, requireAllowedRoots } from '../mcp/index.js';
import { checkPlannedIterations, checkSuiteCases } from '../limits.js';
import {
  resolveModel,
  validateRunModels,
  type HostedModelCatalog,
  type ModelAccess,
  type ModelCase,
} from '../models/catalog.js';
import { priceKey, priceLookup, type ModelPrice, type PriceLookup } from '../models/prices.js';
import { notFound, OperationFailure, refused } from '../failures.js';
import { requireServers } from './serverSelection.js';
import { caseModels, resolveBudget, resolveConcurrency } from './runSettings.js';
import type { IterationIsolation, SavedServer } from '../catalog/server.js';
import type { ExecutedSource, Run, RunBudget } from './run.js';
import type { Case, CaseInput, CaseUpsert } from './case.js';
import type { JudgeModel, ModelChoice, Suite } from './suite.js';
import { DEFAULT_FIRST_ROUND, type AdaptiveRequest, type AdaptiveSettings } from './adaptive.js';
import { adaptiveDesign } from './compare/sequential.js';
import { aboveOrganizationLimit } from './runSettings.js';
import { holdOrQueueRunSlot, withinRunCap, type RunCap } from './runCap.js';

/**
 * Creating an eval run, in one place for every way a run starts: the startRun and startScheduledRun use cases
 * (domain/useCases/runs: POST /eval-runs and a suite's schedule). The rules live here so they cannot drift: the organization's concurrency cap, the suite
 * and its inline cases, the saved servers and host, the bounds on cases and iterations, which models may run with
 * which keys, and the encrypted per-run keys. Refusals are OperationFailures (the API answers them with their code; a schedule
 * records them as the reason a due run was skipped).
 */

export interface RunCreationDeps extends RunCap {
  /** the run's suite, servers, host, keys and limits, and where the run and its plan are written */
  setup: RunSetupStore;
  /** seals the run's own model keys */
  box: SecretBox;
  catalog: HostedModelCatalog;
  /** a run's concurrency when it asks for none (EVAL_ITERATION_CONCURRENCY): the run is planned as it is created */
  defaultConcurrency: number;
}

/**
 * What a run is started with: a suite (by id, or a new one by name with its servers), inline tests to upsert into
 * it first, and the run's settings. POST /eval-runs' body (api/schemas/evals.ts createRunBody) is one, validated;
 * a schedule's is the suite's id alone.
 */
export interface RunRequest {
  suiteId?: string;
  suiteName?: string;
  suiteDescription?: string;
  serverIds?: string[];
  hostId?: string;
  /** inline tests, upserted into the suite by title and query before the run is planned */
  tests?: CaseInput[];
  /** the model (or models) of inline tests that name none, and a new suite's default */
  model?: string;
  models?: ModelChoice[];
  budget?: RunBudget;
  concurrency?: number;
  /** per-run provider keys, sealed with the run and dropped when it ends */
  modelApiKeys?: Record<string, string>;
  judgeModel?: JudgeModel;
  notes?: string;
  passCriteria?: { minimumPassRate: number };
  iterationOverride?: number;
  isolation?: IterationIsolation;
  /** adaptive iterations against a baseline run (issue 31) */
  adaptive?: AdaptiveRequest;
  /**
   * past the organization's concurrency cap, create the run `queued` instead of refusing it (issue 33); absent: the
   * organization's setting (queueRuns, off unless an operator set it)
   */
  queue?: boolean;
}

/** Who starts the run: the organization and project it belongs to, how it was started, and by which API key. */
export interface RunOrigin {
  organizationId: string;
  projectId: string;
  source: ExecutedSource;
  createdByKeyId: string | null;
}

export interface CreatedRun {
  run: Run;
  /** the run's suite's name and the iterations the run plans (for the workflow's description in Web UI) */
  suiteName: string;
  iterations: number;
  caseUpsert: CaseUpsert;
  cases: Case[];
  servers: SavedServer[];
  /**
   * the run's iterations, written with it (planRun, in the same transaction) and handed to its workflow, which then
   * starts the first batches in its first task; absent for a queued run (planned when it is started)
   */
  plan?: RunPlan;
  /** the suite's cases the run leaves out, and why; absent when it runs them all */
  leftOut?: LeftOut;
}

export interface LeftOut {
  cases: number;
  reason: typeof INGESTED_RESULTS_ONLY;
  message: string;
}

const casesOf = (count: number) => (count === 1 ? '1 case' : `${count} cases`);

function leftOut(ingested: number): LeftOut | undefined {
  if (ingested === 0) return undefined;
  const one = ingested === 1;
  return {
    cases: ingested,
    reason: INGESTED_RESULTS_ONLY,
    message:
      `${casesOf(ingested)} of the suite ${one ? 'was' : 'were'} left out: ${one ? 'it was' : 'they were'} created by ingest and ` +
      `${one ? 'holds' : 'hold'} reported results only; writing a case (an inline test with its title and prompt, or a PATCH of it) makes it runnable`,
  };
}

/** A suite whose cases all hold reported results only: 400, saying so and what to do. */
function noRunnableCase(projectId: string, suiteId: string, ingested: number): OperationFailure {
  const theCases =
    ingested === 1
      ? 'its case was created by ingest and holds'
      : `its ${ingested} cases were created by ingest and hold`;
  return refused(
    `the suite has no case to run: ${theCases} reported results only (ingested cases are not run); add a case with a prompt and a model ` +
      `(inline tests, or POST /projects/${projectId}/eval-suites/${suiteId}/cases), or edit one of them (PATCH /projects/${projectId}/eval-suites/${suiteId}/cases/{caseId})`,
    { suiteId, reason: 'NO_RUNNABLE_CASES', ingestedCases: ingested },
  );
}

/**
 * A case as a refusal names it: an inline test of this request by its place in `tests` (what the caller fixes; a case
 * it created would be gone with the refused transaction, id and all), any other case of the suite by its id.
 */
function caseNamed(c: Case, tests: readonly { title: string; query: string }[]): ModelCase {
  const test = tests.findIndex((t) => t.title === c.title && t.query === c.query);
  return test >= 0 ? { title: c.title, test } : { title: c.title, id: c.id };
}

/** A model a run plans, as it would run: the provider it resolves to, and its price there (undefined: unknown). */
export interface PlannedModel {
  model: string | null;
  provider: string | null;
  /** `<provider>/<name>` as priced (domain/models/prices.ts); null when the model does not resolve */
  priceKey: string | null;
  price: ModelPrice | undefined;
}

/** One case of a previewed run: its iterations per model, and the models. */
export interface PreviewedCase {
  /** null: an inline test the run would add to the suite */
  caseId: string | null;
  title: string;
  /** iterations per model (the case's runs, or the run's iterationOverride; an adaptive run's first round) */
  iterations: number;
  /** the most iterations per model it may spend: an adaptive run's maxIterationsPerCase, else `iterations` */
  maxIterations: number;
  /** user prompts per iteration (a conversation's turns) */
  turns: number;
  /** whether a judge model grades it (its calls add to what an iteration spends) */
  judged: boolean;
  models: PlannedModel[];
}

/** What a run would be (POST /eval-runs with dryRun): its suite, cases, models, iterations and budget; nothing written. */
export interface RunPreview {
  suite: { id: string | null; name: string };
  cases: PreviewedCase[];
  iterations: number;
  budget: RunBudget | null;
  judgeModel: PlannedModel | null;
}

/** How a planned model resolves and what it costs, for a preview and a money budget's check. */
function plannedModel(m: { model: string | null; provider: string | null }, access: ModelAccess, prices: PriceLookup) {
  const resolved = resolveModel({ model: m.model ?? '', provider: m.provider, ...access });
  if (!resolved.ok) return { ...m, priceKey: null, price: undefined };
  return {
    model: m.model,
    provider: resolved.provider,
    priceKey: priceKey(resolved.provider, resolved.modelName),
    price: prices(resolved.provider, resolved.modelName),
  };
}

/** A money budget needs a price for every model it pays for: else the budget could never be kept. */
function requirePrices(planned: PlannedModel[]): void {
  const unpriced = [...new Set(planned.filter((m) => !m.price).map((m) => m.priceKey ?? m.model ?? '(none)'))];
  if (unpriced.length === 0) return;
  throw refused(
    `budget.maxCostUsd needs a known price for every model the run uses; ${unpriced.join(', ')} ${unpriced.length === 1 ? 'has' : 'have'} none: ask an operator to set ${unpriced.length === 1 ? 'it' : 'them'} (runway-admin model-prices), or give a token budget instead`,
    { reason: 'UNKNOWN_MODEL_PRICE', field: 'budget.maxCostUsd', models: unpriced },
  );
}

/** Thrown inside a preview's transaction, so that everything it wrote is rolled back; carries the preview out. */
class Previewed extends Error {
  constructor(readonly preview: RunPreview) {
    super('previewed');
  }
}

/** The cap refused inside the transaction; the run may be tried once more after reconciling. */

/**
 * Writes a run (and, for a new suite or inline tests, the suite and its cases) in one transaction, or refuses with
 * nothing written. The run's workflow is not started here: startRun starts it for the API, the scheduled
 * workflow starts it as its child.
 */
export async function createEvalRun(
  deps: RunCreationDeps,
  origin: RunOrigin,
  request: RunRequest,
): Promise<CreatedRun> {
  return (await writeRun(deps, origin, request, false)) as CreatedRun;
}

/**
 * What createEvalRun would create, checked by the same rules and nothing written: the run's transaction goes as far
 * as the plan (inline tests upserted, bounds and models checked) and is then rolled back. The organization's run cap
 * does not apply (nothing runs).
 */
export async function previewEvalRun(
  deps: RunCreationDeps,
  origin: RunOrigin,
  request: RunRequest,
): Promise<RunPreview> {
  return (await writeRun(deps, origin, request, true)) as RunPreview;
}

async function writeRun(
  deps: RunCreationDeps,
  origin: RunOrigin,
  request: RunRequest,
  preview: boolean,
): Promise<CreatedRun | RunPreview> {
  const { setup, box, catalog } = deps;
  let existing: Suite | undefined;
  if (request.suiteId) {
    existing = await setup.suite(origin.projectId, request.suiteId);
    if (!existing) throw notFound('eval suite', { suiteId: request.suiteId });
  }
  const serverIds = request.serverIds ?? existing?.serverIds ?? [];
  if (serverIds.length === 0) {
    throw refused('this suite has no saved server selection; pass serverIds', {
      suiteId: request.suiteId,
      reason: 'NO_SAVED_SERVER_SELECTION',
    });
  }
  const servers = await requireServers(setup, origin.projectId, serverIds);
  // The run declares what its host declares, as the host is now (a later edit does not change a running run).
  const hostId = request.hostId ?? existing?.hostId ?? null;
  const host = hostId === null ? undefined : await setup.host(origin.projectId, hostId);
  if (hostId !== null && !host) throw notFound('host', { hostId });
  // A host's roots reach a server on this machine only as far as an operator allowed (rootsFence.ts).
  const clientProfile = host ? hostClientProfile(host.config) : null;
  if (clientProfile) requireAllowedRoots(clientProfile, servers);
  const modelApiKeys = request.modelApiKeys ?? {};
  const orgProviderKeys = await setup.providerKeys(origin.organizationId);
  // The organization's ceilings: a request above one is refused before anything is written.
  const orgLimits = await setup.organizationLimits(origin.organizationId);
  const concurrency = resolveConcurrency(request.concurrency, orgLimits);
  if (request.budget) resolveBudget(request.budget, null, orgLimits);
  const access: ModelAccess = { catalog, orgProviderKeys, modelApiKeys };
  const prices = priceLookup(await setup.modelPrices(origin.organizationId));
  const earlierCases = preview && existing ? new Set((await setup.cases(existing.id)).map((c) => c.id)) : undefined;
  const adaptive = request.adaptive && (await resolveAdaptive(setup, origin.projectId, existing, request, orgLimits));

  // Past the cap, the run waits as queued when the request (or else the organization) asks for it.
  const queue = request.queue ?? orgLimits.queueRuns ?? false;
  const create = (queueing: boolean) =>
    setup.transaction(async (tx) => {
      const status = preview ? 'running' : await holdOrQueueRunSlot(tx, deps, origin.organizationId, queueing);
      // A rerun holds its suite's row lock from here: a suite deleted meanwhile gets no run. A suiteName makes a
      // new suite every time (names are not unique, as in the real product).
      const locked = existing && (await tx.lockLiveSuite(existing.id));
      if (existing && !locked) throw notFound('eval suite', { suiteId: existing.id });
      const suite =
        locked ||
        (await tx.createSuite({
          projectId: origin.projectId,
          name: request.suiteName!,
          description: request.suiteDescription,
          serverIds: servers.map((s) => s.id),
          defaultModel: request.model,
          defaultModels: request.models,
          passCriteria: request.passCriteria,
          source: 'api',
          hostId,
          iterationIsolation: request.isolation,
          judgeModel: request.judgeModel,
        }));
      // A rerun that names a judge model gives it to the suite (its later runs grade with it too).
      const judgeModel =
        existing && request.judgeModel
          ? (await tx.updateSuite(origin.projectId, suite.id, { judgeModel: request.judgeModel }))!.judgeModel
          : suite.judgeModel;
      const tests = request.tests ?? [];
      if (tests.length > 0) {
        const { cases, adding } = await tx.lockCases(suite.id, tests);
        checkSuiteCases(suite.id, cases, adding);
      }
      const caseUpsert = await tx.upsertCases(
        suite.id,
        tests.map((t) =>
          t.model !== undefined || t.models !== undefined
            ? t
            : { ...t, model: request.model, ...(request.models && { models: request.models }) },
        ),
      );
      const suiteCases = await tx.cases(suite.id);
      if (suiteCases.length === 0)
        throw refused('the suite has no tests to run', { suiteId: suite.id, reason: 'NO_TESTS' });
      // Cases ingest created hold reported results only: the run leaves them out, and says so.
      const cases = runnableCases(suiteCases);
      const ingested = suiteCases.length - cases.length;
      if (cases.length === 0) throw noRunnableCase(origin.projectId, suite.id, ingested);
      // Refused here, the transaction takes back the inline tests (and a suite it created) with it.
      // Each case runs its runs (or iterationOverride) once per model: the bound is on what is planned in all.
      const models = cases.map((c) => caseModels(c, suite));
      const iterations = cases.reduce(
        (planned, c, i) =>
          planned + (adaptive?.design.firstRound ?? request.iterationOverride ?? c.runs) * models[i].length,
        0,
      );
      checkPlannedIterations(suite.id, iterations);
      // An adaptive run may grow to maxIterationsPerCase per case and model: that must fit a run too.
      if (adaptive) {
        checkPlannedIterations(
          suite.id,
          models.reduce((planned, m) => planned + adaptive.maxIterationsPerCase * m.length, 0),
        );
      }
      // The judge model grades the run's judge checks: it must be usable as well (the cases' own models are).
      const judged = judgeModel !== null && cases.some(usesJudge);
      const rejected = validateRunModels(
        [
          ...cases.flatMap((c, i) =>
            models[i].map((m) => ({ model: m.model ?? '', provider: m.provider, case: caseNamed(c, tests) })),
          ),
          ...(judged ? [{ model: judgeModel.model, provider: judgeModel.provider ?? null }] : []),
        ],
        { catalog, orgProviderKeys, modelApiKeys },
      );
      if (rejected) throw rejected;
      const budget = resolveBudget(request.budget, suite.defaultBudget, orgLimits);
      const planned = cases.map((c, i) => models[i].map((m) => plannedModel(m, access, prices)));
      const judge = judged
        ? plannedModel({ model: judgeModel.model, provider: judgeModel.provider ?? null }, access, prices)
        : null;
      if (budget?.maxCostUsd !== undefined) requirePrices([...planned.flat(), ...(judge ? [judge] : [])]);
      if (preview)
        throw new Previewed({
          suite: { id: existing ? suite.id : null, name: suite.name },
          cases: cases.map((c, i) => ({
            caseId: earlierCases?.has(c.id) ? c.id : null,
            title: c.title,
            iterations: adaptive?.design.firstRound ?? request.iterationOverride ?? c.runs,
            maxIterations: adaptive?.maxIterationsPerCase ?? request.iterationOverride ?? c.runs,
            turns: c.turns && c.turns.length > 0 ? c.turns.length : 1,
            judged: usesJudge(c),
            models: planned[i],
          })),
          iterations,
          budget,
          judgeModel: judge,
        });
      const run = await tx.createRun({
        suiteId: suite.id,
        projectId: origin.projectId,
        organizationId: origin.organizationId,
        source: origin.source,
        notes: request.notes,
        passCriteria: request.passCriteria ?? suite.passCriteria,
        serverIds: servers.map((s) => s.id),
        iterationOverride: request.iterationOverride,
        modelKeysEnc: Object.keys(modelApiKeys).length > 0 ? box.encryptJson(modelApiKeys) : null,
        createdByKeyId: origin.createdByKeyId,
        hostId,
        clientProfile,
        iterationIsolation: request.isolation ?? suite.iterationIsolation,
        budget,
        concurrency,
        adaptive,
        status,
      });
      // Planned with the run: the workflow starts batches in its first task instead of planning first. A queued run
      // is planned when it is started (promoteQueuedRuns), with the suite as it is then.
      const plan =
        status === 'queued' ? undefined : await planRun(tx, run.id, { concurrency: deps.defaultConcurrency });
      return { run, caseUpsert, cases, suiteName: suite.name, iterations, plan, leftOut: leftOut(ingested) };
    });
  if (preview)
    return await create(false).then(
      () => {
        throw new Error('a preview must end in its rollback');
      },
      (error: unknown) => {
        if (error instanceof Previewed) return error.preview;
        throw error;
      },
    );
  // At the cap, a run whose workflow was terminated in Web UI frees its slot here, not only when someone reads it.
  // A schedule's refusal is no place to suggest `queue: true` (its organization's setting decides).
  const queueing = origin.source === 'schedule' && !queue ? undefined : queue;
  const created = await withinRunCap(deps, origin.organizationId, create, queueing);
  return { ...created, servers };
}

/** Whether a case (or one of its turns) has its answer graded by a judge model. */
export function usesJudge(c: Pick<Case, 'expectedOutput' | 'outputCheck' | 'turns'>): boolean {
  if (c.turns) return c.turns.some((t) => t.expectedOutput !== undefined && t.outputCheck?.mode === 'judge');
  return c.expectedOutput !== null && c.outputCheck?.mode === 'judge';
}

/**
 * An adaptive run's settings, or a 4xx saying what cannot work: the baseline must be a run of the same (existing)
 * suite that is not running (unknown: 404, as the compare endpoint answers), "previous" needs a completed run of the
 * suite, the first round must fit maxIterationsPerCase, and iterationOverride says the same thing another way.
 */
async function resolveAdaptive(
  setup: RunSetupStore,
  projectId: string,
  suite: Suite | undefined,
  request: RunRequest,
  orgLimits: { maxIterations: number | null },
): Promise<AdaptiveSettings> {
  const asked = request.adaptive!;
  if (request.iterationOverride !== undefined) {
    throw refused(
      'adaptive sets the iterations per case (firstRound, then rounds up to maxIterationsPerCase); leave out iterationOverride',
      {
        field: 'iterationOverride',
        reason: 'ADAPTIVE_WITH_ITERATIONS',
      },
    );
  }
  const firstRound = asked.firstRound ?? Math.min(DEFAULT_FIRST_ROUND, asked.maxIterationsPerCase);
  if (asked.maxIterationsPerCase < firstRound) {
    throw refused(
      `adaptive.maxIterationsPerCase (${asked.maxIterationsPerCase}) is below the first round (${firstRound} iterations per case)`,
      { field: 'adaptive.maxIterationsPerCase', reason: 'BELOW_FIRST_ROUND', firstRound },
    );
  }
  if (orgLimits.maxIterations !== null && asked.maxIterationsPerCase > orgLimits.maxIterations) {
    throw aboveOrganizationLimit('adaptive.maxIterationsPerCase', asked.maxIterationsPerCase, orgLimits.maxIterations);
  }
  if (!suite) {
    throw refused('an adaptive run compares with a baseline run of its suite: a new suite has none; pass suiteId', {
      field: 'adaptive.baseline',
      reason: 'NO_BASELINE_SUITE',
    });
  }
  let baselineRunId: string;
  if (asked.baseline === 'previous') {
    const previous = await setup.lastCompletedRun(suite.id);
    if (!previous) {
      throw notFound('base run', { reason: 'NO_PREVIOUS_RUN', suiteId: suite.id, field: 'adaptive.baseline' });
    }
    baselineRunId = previous.id;
  } else {
    const baseline = await setup.run(asked.baseline);
    if (!baseline || baseline.projectId !== projectId) throw notFound('base run', { baseRunId: asked.baseline });
    if (baseline.suiteId !== suite.id) {
      throw refused(
        `the baseline run ${baseline.id} belongs to another suite (${baseline.suiteId}); compare with a run of this suite`,
        {
          field: 'adaptive.baseline',
          reason: 'BASELINE_OF_ANOTHER_SUITE',
          baselineSuiteId: baseline.suiteId,
        },
      );
    }
    if (baseline.status === 'running' || baseline.status === 'queued') {
      throw refused(`the baseline run ${baseline.id} is still running; compare with a run that has ended`, {
        field: 'adaptive.baseline',
        reason: 'BASELINE_RUNNING',
      });
    }
    baselineRunId = baseline.id;
  }
  return {
    baselineRunId,
    maxIterationsPerCase: asked.maxIterationsPerCase,
    stopWhen: asked.stopWhen,
    design: adaptiveDesign(firstRound, asked.maxIterationsPerCase),
  };
}
