import type { ConformanceScenario, ConformanceScore } from './report.js';

export const SCORE_METHOD =
  "100 × the scored scenarios that passed (none of their checks failed; warnings do not fail) ÷ the scored scenarios the suite ran, rounded down; scenarios outside the revision's scored set, and those the suite did not run for this server (not applicable), do not count; 0 when no scored scenario ran.";

/** The score of a report's scenarios (SCORE_METHOD says how, in words). */
export function scoreScenarios(scenarios: readonly ConformanceScenario[]): ConformanceScore {
  const scored = scenarios.filter((scenario) => scenario.scored && scenario.status !== 'not_applicable');
  const passedScenarios = scored.filter((scenario) => scenario.status === 'passed').length;
  const checks = scored.flatMap((scenario) => scenario.checks);
  return {
    value: scored.length === 0 ? 0 : Math.floor((100 * passedScenarios) / scored.length),
    passedScenarios,
    scoredScenarios: scored.length,
    passedChecks: checks.filter((check) => check.status === 'passed').length,
    failedChecks: checks.filter((check) => check.status === 'failed').length,
    method: SCORE_METHOD,
  };
}
