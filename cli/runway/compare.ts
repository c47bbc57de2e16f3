import type { EvalModelComparison, EvalRunComparison } from '../../api/client.js';
import { formatTable, percent, usd } from './table.js';

/*
 * What the CLI makes of GET /eval-runs/{id}/compare: the table (regressions first, as the API orders the cases),
 * and the gate a CI job applies, which always names the rule and the cases that failed it:
 * - `significant-regression` (default): fails when a matched case regressed significantly (Benjamini-Hochberg at
 *   5% over the matched cases), which is when the suite's verdict is `regressed`;
 * - `any-regression`: fails as well when any matched case's pass rate fell at all (`changed` downwards), noise
 *   included.
 * New and removed cases never fail the gate.
 */
export type FailOn = 'significant-regression' | 'any-regression';
export const failOnChoices: FailOn[] = ['significant-regression', 'any-regression'];

type CaseRow = EvalRunComparison['cases'][number];

const signed = (value: number | null) => (value === null ? '-' : `${value > 0 ? '+' : ''}${(value * 100).toFixed(1)}`);
const rateOf = (side: CaseRow['base']) => (side ? `${side.passed}/${side.total} ${percent(side.passRate)}` : '-');
const pOf = (p: number | null) => (p === null ? '-' : p < 0.0001 ? '<0.0001' : p.toFixed(4));

/** A case whose pass rate went down, significantly or not. */
export const dropped = (c: CaseRow) => c.status === 'regressed' || (c.status === 'changed' && (c.difference ?? 0) < 0);

/** The cases that fail the gate. */
export function gateFailures(comparison: EvalRunComparison, failOn: FailOn): CaseRow[] {
  return comparison.cases.filter((c) => (failOn === 'any-regression' ? dropped(c) : c.status === 'regressed'));
}

/** Whether the gate fails: a case it counts (the suite's verdict follows from the cases). */
export function gateFails(comparison: EvalRunComparison, failOn: FailOn): boolean {
  return gateFailures(comparison, failOn).length > 0;
}

const RULE_WORDS: Record<FailOn, string> = {
  'significant-regression': 'regressed significantly (Benjamini-Hochberg, false-discovery rate 5%)',
  'any-regression': 'lost pass rate, noise included',
};

/** The gate's outcome in one line: the rule, and the cases that failed it. */
export function gateLine(comparison: EvalRunComparison, failOn: FailOn): string {
  const failures = gateFailures(comparison, failOn);
  if (failures.length === 0) return `[runway] passed --fail-on ${failOn}: no case ${RULE_WORDS[failOn]}`;
  const cases = failures.length === 1 ? '1 case' : `${failures.length} cases`;
  return `[runway] FAILED --fail-on ${failOn}: ${cases} ${RULE_WORDS[failOn]}: ${failures.map((c) => c.title).join(', ')}`;
}

export function formatComparison(comparison: EvalRunComparison): string {
  const { base, current, suite } = comparison;
  const head = `Comparing run ${current.runId} (#${current.runNumber}) with base ${base.runId} (#${base.runNumber})`;
  const table = formatTable(
    ['STATUS', 'CASE', 'BASE', 'CURRENT', 'DIFF (pp)', '95% CI (pp)', 'P', 'ADJ. P', 'SIGNIFICANT', 'ITER. NEEDED'],
    comparison.cases.map((c) => [
      c.status,
      c.title,
      rateOf(c.base),
      rateOf(c.current),
      signed(c.difference),
      c.differenceInterval ? `${signed(c.differenceInterval.low)} .. ${signed(c.differenceInterval.high)}` : '-',
      pOf(c.pValue),
      pOf(c.adjustedPValue),
      c.significant ? 'yes' : 'no',
      c.iterationsNeeded ?? '-',
    ]),
    { align: ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'left', 'right'] },
  );
  const verdict =
    `Suite: ${percent(suite.base.passRate)} -> ${percent(suite.current.passRate)} (${signed(suite.difference)} pp, ` +
    `95% CI ${signed(suite.differenceInterval.low)} .. ${signed(suite.differenceInterval.high)}): ` +
    `${suite.verdict.toUpperCase().replaceAll('_', ' ')}: ${suite.verdictReason}`;
  const pooled = suite.pooled;
  const pooledLine =
    `Pooled matched cases: ${percent(pooled.base.passRate)} -> ${percent(pooled.current.passRate)} ` +
    `(${signed(pooled.difference)} pp, p ${pOf(pooled.pValue)}; reported, does not decide the verdict)`;
  const ni = comparison.nonInferiority;
  const niLine = ni
    ? `Non-inferiority at a margin of ${(ni.margin * 100).toFixed(1)} pp: ${ni.overall.verdict.toUpperCase().replaceAll('_', '-')} ` +
      `(${signed(ni.overall.difference)} pp, 95% CI ${signed(ni.overall.differenceInterval.low)} .. ${signed(ni.overall.differenceInterval.high)})`
    : undefined;
  return [head, table, verdict, pooledLine, ...(niLine ? [niLine] : []), ...driftLines(comparison)].join('\n');
}

/** A run's models against its base model with a margin: which model to pick, and why. */
export function formatModelChoices(comparison: EvalModelComparison): string {
  const margin = comparison.margin ?? 0;
  const verdictOf = new Map(comparison.comparisons.map((c) => [c.current.model ?? null, c.nonInferiority]));
  const table = formatTable(
    ['MODEL', 'PASSED', 'PASS RATE', 'DIFF (pp)', '95% CI (pp)', 'VERDICT', 'P50 MS', 'TOKENS/ITER.', 'COST'],
    (comparison.choices ?? []).map((c) => {
      const ni = verdictOf.get(c.model)?.overall;
      return [
        c.model ?? '-',
        `${c.passed}/${c.total}`,
        percent(c.passRate),
        ni ? signed(ni.difference) : '-',
        ni ? `${signed(ni.differenceInterval.low)} .. ${signed(ni.differenceInterval.high)}` : '-',
        c.verdict.replaceAll('_', '-'),
        c.latencyMs.p50 ?? '-',
        c.total === 0 ? '-' : Math.round(c.tokens.total / c.total),
        usd(c.costUsd),
      ];
    }),
    { align: ['left', 'right', 'right', 'right', 'right', 'left', 'right', 'right', 'right'] },
  );
  const head = `Models of run ${comparison.runId} against ${comparison.baseModel ?? '-'}, margin ${(margin * 100).toFixed(1)} pp (non-inferior: the 95% interval lies above -margin)`;
  const by =
    comparison.cheapestBy === 'cost' ? 'by cost per iteration' : 'by tokens per iteration (a price is unknown)';
  const pick = `Cheapest non-inferior model: ${comparison.cheapestNonInferior ?? '-'} (${by})`;
  return [head, table, pick].join('\n');
}

/** The tool drift between the runs (surfaces.ts formats it), when their servers showed different tools. */
function driftLines(comparison: EvalRunComparison): string[] {
  const drift = comparison.drift;
  if (!drift?.changed) return [];
  const lines = ['Tool drift between the runs:'];
  for (const server of drift.servers) {
    lines.push(`  ${server.serverName} (${server.from?.slice(0, 12) ?? '-'} -> ${server.to?.slice(0, 12) ?? '-'}):`);
    for (const line of server.summary) lines.push(`    ${line}`);
  }
  const touched = comparison.cases.filter((c) => c.toolDrift && c.toolDrift.length > 0);
  for (const c of touched)
    lines.push(`  case "${c.title}" (${c.status}) uses changed tools: ${c.toolDrift!.join(', ')}`);
  return lines;
}
