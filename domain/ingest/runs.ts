import { notFound, OperationFailure } from '../failures.js';
import type { IngestStore } from '../ports/ingestStore.js';
import type { Principal } from '../principal.js';
import { finalizeRun } from '../useCases/runs/finalizeRun.js';
import { checkIngestedIterations, checkSuiteCases } from '../limits.js';
import { caseIdentity, toCaseInput, toIngestedIteration, type IngestResult } from './results.js';
import type { Run } from '../evals/run.js';
import type { RunEnded, RunEndedEvent } from '../ports/runEnded.js';

/** Runs reported from outside (the SDK reporter, CI, uploaded artifacts) carry this source. */
export const INGEST_SOURCE = 'sdk';

export interface IngestRunInput {
  projectId: string;
  organizationId: string;
  keyId: string | null;
  suiteName: string;
  suiteDescription?: string;
  serverNames?: string[];
  notes?: string;
  passCriteria?: { minimumPassRate: number };
  externalRunId: string;
  framework?: string;
  ci?: Record<string, unknown>;
  expectedIterations?: number;
  tags?: string[];
}

/** What a reporter says about its run; the project, organization and key come from the call. */
export type IngestRunFields = Omit<IngestRunInput, 'projectId' | 'organizationId' | 'keyId'>;

/** A reporter's run, in the project it reports to, by the key that reports it. */
export function ingestRunInput(
  project: { id: string; organizationId: string },
  principal: Pick<Principal, 'keyId'>,
  fields: IngestRunFields,
): IngestRunInput {
  return { ...fields, projectId: project.id, organizationId: project.organizationId, keyId: principal.keyId };
}

/**
 * The run named by `externalRunId`: created (in the suite of that name, created too if need be) or, when it
 * exists, reused as it is. Concurrent starts of one id meet on the unique index: one inserts, the others get
 * its run. Ingested runs never count against the organization's cap on executed runs. In the caller's transaction.
 */
export async function startIngestRun(tx: IngestStore, input: IngestRunInput): Promise<{ run: Run; reused: boolean }> {
  const existing = await tx.runByExternalId(input.projectId, input.externalRunId);
  if (existing) return { run: existing, reused: true };
  try {
    // A savepoint, so that losing the race also rolls back a suite this attempt created.
    const run = await tx.savepoint(async (sp) => {
      const serverIds = await serverIdsByName(sp, input.projectId, input.serverNames ?? []);
      const suite = await sp.suiteNamed({
        projectId: input.projectId,
        name: input.suiteName,
        description: input.suiteDescription,
        serverIds,
        passCriteria: input.passCriteria,
        source: INGEST_SOURCE,
      });
      const created = await sp.createRun({
        suiteId: suite.id,
        projectId: input.projectId,
        organizationId: input.organizationId,
        source: INGEST_SOURCE,
        notes: input.notes,
        passCriteria: input.passCriteria ?? suite.passCriteria,
        serverIds,
        createdByKeyId: input.keyId,
        externalRunId: input.externalRunId,
        framework: input.framework,
        ci: input.ci,
        tags: input.tags,
        expectedIterations: input.expectedIterations,
      });
      await sp.markStarted(created.id);
      return created;
    });
    return { run, reused: false };
  } catch (error) {
    if (!tx.isExternalRunConflict(error)) throw error;
    const winner = await tx.runByExternalId(input.projectId, input.externalRunId);
    if (!winner) throw error;
    return { run: winner, reused: true };
  }
}

/** Saved servers named by the reporter; names the project does not have are ignored. */
async function serverIdsByName(tx: IngestStore, projectId: string, names: string[]): Promise<string[]> {
  if (names.length === 0) return [];
  return (await tx.serversNamed(projectId, names)).map((s) => s.id);
}

export interface AppendOutcome {
  inserted: number;
  /** results the run already had (same externalIterationId), e.g. from a retried call */
  skipped: number;
  /** iterations the run holds now */
  total: number;
}

/**
 * Appends results to a run the caller has locked (lockRun). A result whose externalIterationId the run already
 * holds is skipped; so is a repeat within the call. Adding anything new to a finished run is a CONFLICT, and
 * past the bounds on a run's iterations and a suite's cases a VALIDATION_ERROR, before anything is written.
 */
export async function appendResults(tx: IngestStore, run: Run, results: IngestResult[]): Promise<AppendOutcome> {
  const ids = new Set<string>();
  const unique = results.filter((r) => {
    if (r.externalIterationId === undefined) return true;
    if (ids.has(r.externalIterationId)) return false;
    ids.add(r.externalIterationId);
    return true;
  });
  const known = await tx.knownExternalIterationIds(run.id, [...ids]);
  const fresh = unique.filter((r) => r.externalIterationId === undefined || !known.has(r.externalIterationId));
  const held = await tx.iterationCount(run.id);
  let inserted = 0;
  if (fresh.length > 0) {
    if (run.status !== 'running') {
      throw new OperationFailure(
        'CONFLICT',
        `run ${run.id} is already ${run.status}; start a new run (another externalRunId) to report more results`,
        {
          runId: run.id,
          status: run.status,
          reason: 'RUN_FINALIZED',
        },
      );
    }
    checkIngestedIterations(run.id, held, fresh.length);
    const caseIds = await storeCases(tx, run.suiteId, fresh);
    const caseIdOf = (r: IngestResult) => caseIds.get(caseIdentity(r)) ?? null;
    const caseless = fresh.filter((r) => caseIdOf(r) === null).map((r) => r.caseTitle);
    const lastNumbers = await tx.lastIterationNumbers(run.id, [...new Set(caseIds.values())], caseless);
    const iterations = fresh.map((r) => {
      const caseId = caseIdOf(r);
      const key = caseId ?? `title:${r.caseTitle}`;
      const number = (lastNumbers.get(key) ?? 0) + 1;
      lastNumbers.set(key, number);
      return toIngestedIteration(r, caseId, number);
    });
    inserted = (await tx.addIterations(run.id, iterations)).size;
  }
  // The run is locked: nothing else adds to it meanwhile.
  return { inserted, skipped: results.length - inserted, total: held + inserted };
}

/**
 * The ids of the cases the results name (by externalCaseId, else title + query), by identity. Cases are found or
 * created, never rewritten: a case keeps what first reported it, so results reported into a suite Runway also
 * executes cannot change how it runs, and a suite reported into every night costs no case writes. Each iteration
 * keeps its own title, model and tool calls. A case that cannot be created (e.g. its external id and its title
 * collide with two different cases) leaves its iterations without a case, still recorded under their title.
 * Creating cases locks the suite, so that concurrent reports cannot together pass the bound on its cases.
 */
async function storeCases(tx: IngestStore, suiteId: string, results: IngestResult[]): Promise<Map<string, string>> {
  const byIdentity = new Map<string, IngestResult>();
  for (const r of results) if (!byIdentity.has(caseIdentity(r))) byIdentity.set(caseIdentity(r), r);
  const found = await findReportedCases(tx, suiteId, [...byIdentity.values()]);
  const unfound = () => [...byIdentity].filter(([identity]) => !found.has(identity)).map(([, r]) => r);
  if (unfound().length > 0) {
    const cases = await tx.lockCases(suiteId);
    // Looked up again under the lock: another report may have created some meanwhile.
    for (const [identity, id] of await findReportedCases(tx, suiteId, unfound())) found.set(identity, id);
    const missing = unfound();
    checkSuiteCases(suiteId, cases, missing.length);
    await tx.addReportedCases(suiteId, missing.map(toCaseInput));
    for (const [identity, id] of await findReportedCases(tx, suiteId, missing)) found.set(identity, id);
  }
  return found;
}

async function findReportedCases(
  tx: IngestStore,
  suiteId: string,
  results: IngestResult[],
): Promise<Map<string, string>> {
  const plain = results.filter((r) => r.externalCaseId === undefined);
  const rows = await tx.casesByIdentity(suiteId, {
    externalCaseIds: results.flatMap((r) => (r.externalCaseId === undefined ? [] : [r.externalCaseId])),
    titles: plain.map((r) => r.caseTitle),
    queries: plain.map((r) => r.query ?? ''),
  });
  const found = new Map<string, string>();
  for (const row of rows) {
    if (row.externalCaseId !== null)
      found.set(caseIdentity({ caseTitle: row.title, externalCaseId: row.externalCaseId }), row.id);
    found.set(caseIdentity({ caseTitle: row.title, query: row.query }), row.id);
  }
  return found;
}

/**
 * The ingested run a chunked call names, locked until the transaction ends (lockRun); a run Runway executed takes
 * no reported results (CONFLICT NOT_AN_INGESTED_RUN).
 */
export async function lockIngestedRun(
  tx: IngestStore,
  projectId: string,
  ref: { runId?: string; externalRunId?: string },
): Promise<Run> {
  const run = await tx.lockRun(projectId, ref);
  if (!run) throw notFound('eval run', ref);
  if (run.externalRunId === null) {
    throw new OperationFailure(
      'CONFLICT',
      `run ${run.id} was executed by Runway, not reported; only runs created by runs/start take results`,
      { runId: run.id, reason: 'NOT_AN_INGESTED_RUN' },
    );
  }
  return run;
}

/**
 * Finalizes a run the caller has locked: the summary of executed runs, over what was reported. Idempotent.
 * `runEnded` is told when this call ended the run, still inside the caller's transaction: pass a collector
 * (collectRunEndings) and tell the real listener after the transaction commits.
 */
export async function finalizeIngestRun(tx: IngestStore, run: Run, runEnded?: RunEnded): Promise<Run> {
  if (run.status === 'running')
    await finalizeRun({ runs: tx.runs, ...(runEnded && { runEnded }) })({ runId: run.id, outcome: 'completed' });
  return (await tx.runs.get(run.id))!;
}

/**
 * One-shot: start, append, finalize in one transaction. A known externalRunId whose run is finished returns
 * that run unchanged; one still running (a chunked upload) gets these results and is finalized.
 */
export async function reportRun(
  tx: IngestStore,
  input: IngestRunInput,
  results: IngestResult[],
  runEnded?: RunEnded,
): Promise<Run> {
  const { run: started } = await startIngestRun(tx, input);
  const run = (await tx.lockRun(input.projectId, { runId: started.id }))!;
  if (run.status !== 'running') return run;
  await appendResults(tx, run, results);
  return await finalizeIngestRun(tx, run, runEnded);
}

/** What every ingest reply says about a run. */
export function runOutcome(run: Run) {
  return { suiteId: run.suiteId, runId: run.id, status: run.status, result: run.result, summary: run.summary };
}

/**
 * What finalizeRun tells while an ingest's transaction is open, held until the transaction has committed: `told`
 * passes each ending to the real listener then (a rolled-back transaction tells nothing).
 */
export function collectRunEndings(): { collect: RunEnded; told: (runEnded: RunEnded | undefined) => Promise<void> } {
  const endings: RunEndedEvent[] = [];
  return {
    collect: async (event) => {
      endings.push(event);
    },
    async told(runEnded) {
      if (!runEnded) return;
      for (const event of endings.splice(0)) await runEnded(event);
    },
  };
}
