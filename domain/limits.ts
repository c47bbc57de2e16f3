import { OperationFailure } from './failures.js';

/**
 * The product's limits: how much one request, artifact, suite or run may hold, so that no caller can make the
 * service do unbounded work. Each is checked before anything is written and answered with a 400
 * VALIDATION_ERROR naming it (`details: { reason, limit, ... }`); the zod schemas and route descriptions serve
 * them in the OpenAPI document, and docs/SECURITY.md's limits table lists them.
 */
export const limits = {
  /** inline tests per POST /eval-suites or /eval-runs */
  testsPerRequest: 100,
  /** runs of one test case, and a run's iterationOverride */
  runsPerTest: 10,
  /** iterations one executed run may plan: the contract's 100 tests x 10 runs (x each case's models) */
  iterationsPerRun: 1_000,
  /** models one case (or a suite's default list) may compare: each runs every iteration of the case */
  modelsPerCase: 10,
  /** batches of one run in flight at once (`concurrency` of POST /eval-runs) */
  runConcurrency: 32,
  /** a run budget's maxTokens: well past any real run, and exact in a double */
  budgetTokens: 1_000_000_000_000,
  /** a run budget's maxCostUsd, and an organization's price per million tokens: well past any real one */
  budgetUsd: 1_000_000,
  /**
   * cases one suite may hold, however they came (authored, inline tests of reruns, ingest): room for the largest
   * artifact, and a bound on what every rerun of the suite reads
   */
  casesPerSuite: 10_000,
  /** results per ingest report or runs/iterations call */
  resultsPerCall: 200,
  /**
   * tests one uploaded artifact may hold (it is ingested in one transaction): the JUnit or Jest report of a large
   * CI suite, and the scale the ingest target promises (10,000 iterations in under 10 s)
   */
  resultsPerArtifact: 10_000,
  /** iterations one ingested run may hold across its chunks: the same scale */
  iterationsPerIngestedRun: 10_000,
  /**
   * suites of one organization that may run on an enabled schedule: every due time starts a workflow and writes,
   * even when the run cap then skips it, so their number is bounded like the runs themselves
   */
  schedulesPerOrganization: 50,
  /**
   * how deep the JSON of a json-subset check may nest (its expectation, refused at the edge; an answer deeper fails
   * the check): the comparison recurses, and no expected answer needs more
   */
  outputCheckJsonDepth: 64,
  /**
   * MCP sessions a process keeps open with nobody using them (idle, or warm for eval iterations), per saved server
   * across its client profiles (one per host) and per organization across its servers: past these the least recently
   * used are closed, a stdio server's process with them (domain/mcp/idleSessions.ts). Not a request limit: nothing
   * is refused, a later operation opens a new session.
   */
  idleSessionsPerServer: 4,
  idleSessionsPerOrganization: 16,
  /**
   * bytes of what a server sends that one server operation answers with (a list across its pages, an export or a
   * doctor's lists together, a tool result, a prompt, a resource): past it paging stops and a result is cut, and the
   * reply says so (`truncated`). Servers send and callers receive no more than this through Runway.
   */
  serverReplyBytes: 8 * 1024 * 1024,
  /**
   * bytes of one JSON-RPC message Runway reads from a server, on any transport: a larger one is not buffered, and
   * the request fails (the session ends). Above serverReplyBytes, so that a result a little over the budget is cut,
   * not refused.
   */
  serverMessageBytes: 16 * 1024 * 1024,
  /**
   * bytes each part of an eval iteration's stored trace may hold (a message's content part: a tool result, the
   * model's text or tool call): a larger part is stored cut, marked with its original size
   */
  tracePartBytes: 64 * 1024,
  /**
   * rounds of questions (MRTR `input_required`, protocol 2026-07-28) one request answers before it is sent again:
   * past it the request fails (INPUT_REQUIRED_ROUNDS_EXCEEDED) instead of asking forever
   */
  inputRequiredRounds: 8,
  /** answers one elicitation script (a case's, or a turn's) may hold: `elicitation: { answers: [...] }` */
  scriptedAnswers: 50,
  /**
   * questions a server asked that one iteration's trace records (`questions`): past it they are still answered, and
   * only counted (`questionsOmitted`)
   */
  tracedQuestions: 100,
  /** bytes of JSON each recorded question may hold (its message, form and answer): a larger one is stored cut */
  questionTraceBytes: 4 * 1024,
} as const;

/** 10000 -> `10,000`, as messages and descriptions write numbers. */
export const formatCount = (n: number) => n.toLocaleString('en-US');

function exceeded(reason: string, message: string, limit: number, details: Record<string, unknown>): OperationFailure {
  return new OperationFailure('VALIDATION_ERROR', message, { reason, limit, ...details });
}

/** An uploaded artifact with more tests than one upload may hold. */
export function checkArtifactResults(results: number, format: string): void {
  const limit = limits.resultsPerArtifact;
  if (results <= limit) return;
  throw exceeded(
    'TOO_MANY_RESULTS',
    `the artifact holds ${formatCount(results)} tests, more than the ${formatCount(limit)} one upload may hold; upload the report in parts (e.g. one per CI shard)`,
    limit,
    { results, format },
  );
}

/** A suite that would hold more cases than a suite may: `cases` it holds, `adding` new ones. */
export function checkSuiteCases(suiteId: string, cases: number, adding: number): void {
  const limit = limits.casesPerSuite;
  if (cases + adding <= limit) return;
  throw exceeded(
    'TOO_MANY_CASES',
    `suite ${suiteId} holds ${formatCount(cases)} cases; ${formatCount(adding)} new ones would pass the ${formatCount(limit)} a suite may hold: use another suite, or reuse the existing cases' titles`,
    limit,
    { suiteId, cases, adding },
  );
}

/** An executed run that would plan more iterations than a run may. */
export function checkPlannedIterations(suiteId: string, planned: number): void {
  const limit = limits.iterationsPerRun;
  if (planned <= limit) return;
  throw exceeded(
    'TOO_MANY_ITERATIONS',
    `this run would plan ${formatCount(planned)} iterations (each case's runs, or iterationOverride, times its models, summed over the suite's cases), more than the ${formatCount(limit)} a run may plan: lower runs or iterationOverride, or split the suite`,
    limit,
    { suiteId, planned },
  );
}

/** An ingested run that would hold more iterations than one may: `iterations` it holds, `adding` new ones. */
export function checkIngestedIterations(runId: string, iterations: number, adding: number): void {
  const limit = limits.iterationsPerIngestedRun;
  if (iterations + adding <= limit) return;
  throw exceeded(
    'TOO_MANY_ITERATIONS',
    `run ${runId} holds ${formatCount(iterations)} iterations; ${formatCount(adding)} more would pass the ${formatCount(limit)} an ingested run may hold: report the rest as another run (another externalRunId)`,
    limit,
    { runId, iterations, adding },
  );
}

/** Enabling one more schedule in an organization that already has `enabled` of them. */
export function checkEnabledSchedules(organizationId: string, enabled: number): void {
  const limit = limits.schedulesPerOrganization;
  if (enabled < limit) return;
  throw exceeded(
    'TOO_MANY_SCHEDULES',
    `the organization already runs ${formatCount(enabled)} suites on a schedule, the most it may: disable one first (PATCH .../schedule { "enabled": false })`,
    limit,
    { organizationId, enabled },
  );
}
