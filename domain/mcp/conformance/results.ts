import { z } from 'zod';
import type { ConformanceCheck, ConformanceScenario } from './report.js';
import type { ServerRequirements } from './requirements.js';

/**
 * Reading what the suite wrote: one folder per scenario run, `server-<scenario>-<timestamp>`, holding checks.json
 * (the suite's checks: SUCCESS, FAILURE, WARNING, SKIPPED or INFO, the failure's own message, spec references).
 */

/** `server-<scenario>-<ISO timestamp with - for : and .>`: the scenario's name, else undefined. */
const RESULT_DIR = /^server-(.+)-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z)$/;

export function scenarioOfResultDir(dirName: string): string | undefined {
  return RESULT_DIR.exec(dirName)?.[1];
}

const STATUSES = {
  SUCCESS: 'passed',
  FAILURE: 'failed',
  WARNING: 'warning',
  SKIPPED: 'skipped',
  INFO: 'info',
} as const satisfies Record<string, ConformanceCheck['status']>;

/** Bytes of a check's text kept (a message, a description): the suite quotes what servers sent in some of them. */
export const CHECK_TEXT_CHARS = 2000;
const text = (value: string) => (value.length > CHECK_TEXT_CHARS ? `${value.slice(0, CHECK_TEXT_CHARS)}…` : value);

const checkSchema = z.object({
  id: z.string(),
  name: z.string().default(''),
  description: z.string().default(''),
  status: z.enum(Object.keys(STATUSES) as [keyof typeof STATUSES, ...(keyof typeof STATUSES)[]]),
  errorMessage: z.string().optional(),
  specReferences: z.array(z.object({ id: z.string(), url: z.string().default('') })).default([]),
});

/** A checks.json's text as our checks; throws (with zod's issues) when it is not the suite's format. */
export function parseChecks(json: string): ConformanceCheck[] {
  const checks = z.array(checkSchema).parse(JSON.parse(json));
  return checks.map((check) => {
    const status = STATUSES[check.status];
    const carriesMessage = status === 'failed' || status === 'warning';
    return {
      id: check.id,
      name: check.name,
      description: text(check.description),
      status,
      message: carriesMessage ? text(check.errorMessage ?? '') || null : null,
      specReferences: check.specReferences.map(({ id, url }) => ({ id, url })),
    };
  });
}

/**
 * A scenario's checks as the suite reported them, or the failure to read them (an unreadable checks.json is a
 * failed scenario, never a passed one).
 */
export type ScenarioResult = { checks: ConformanceCheck[] } | { unreadable: string };

/**
 * The report's scenarios: every scenario of the requirement set (scored first, in the file's order, then the
 * not-scored ones), each with the result the suite wrote for it; one it wrote nothing for is not applicable.
 * Scenarios the suite ran outside the requirement set are left out (they are not part of the revision).
 */
export function assembleScenarios(
  requirements: ServerRequirements,
  results: ReadonlyMap<string, ScenarioResult>,
): ConformanceScenario[] {
  const entries = [
    ...requirements.scored.map((name) => ({ name, scored: true, notScoredReason: null })),
    ...requirements.notScored.map(({ scenario, reason, note }) => ({
      name: scenario,
      scored: false,
      notScoredReason: note ? `${reason}: ${note}` : reason,
    })),
  ];
  return entries.map((entry) => {
    const result = results.get(entry.name);
    if (!result) return { ...entry, status: 'not_applicable', checks: [] };
    if ('unreadable' in result) {
      const check: ConformanceCheck = {
        id: 'scenario-ran',
        name: 'ScenarioRan',
        description:
          "the suite ran the scenario to the end and wrote its checks (a check of Runway's, not the suite's)",
        status: 'failed',
        message: text(result.unreadable),
        specReferences: [],
      };
      return { ...entry, status: 'failed', checks: [check] };
    }
    // As the suite itself counts it: passed unless a check failed (warnings, skipped and info checks do not fail).
    const failed = result.checks.some((check) => check.status === 'failed');
    return { ...entry, status: failed ? 'failed' : 'passed', checks: result.checks };
  });
}
