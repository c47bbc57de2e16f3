/**
 * A comparison of two sides (two runs, or two models of one run) built from their aggregates. Pure: no I/O.
 *
 * Cases are matched by case id, then, among those left, by title + query (an ingested result stored without a case,
 * or a case deleted and created again). Per matched case, Fisher's exact test on the pass/fail counts gives a
 * p-value; Benjamini-Hochberg across the matched cases decides `significant` at a false-discovery rate of 5%.
 *
 * Status of a case:
 * - `new_case` / `removed_case`: only in the current / only in the base side;
 * - `regressed` / `fixed`: the pass rate fell / rose, and the change is significant;
 * - `changed`: the pass rate moved, but not significantly (noise, as far as these iterations can tell);
 * - `unchanged_passed`: every iteration passed on both sides; `unchanged_failed`: the same pass rate below 100%.
 *
 * Suite verdict: `regressed` when a case regressed significantly or the pooled pass rate fell significantly (Fisher
 * on all iterations of each side); otherwise `improved` when a case was fixed or the pooled rate rose significantly;
 * otherwise `no_significant_change`. A regression wins over an improvement: it is what a CI gate must see.
 */
import type { CaseAggregate, Confusion, SideAggregates } from './aggregates.js';
import type { Interval } from '../statistics.js';
import { benjaminiHochberg, fisherExact, iterationsNeeded, rateDifference } from './statistics.js';
import { scoreTool, type ToolSide } from './tools.js';

export const FALSE_DISCOVERY_RATE = 0.05;

export type CaseStatus =
  'regressed' | 'fixed' | 'new_case' | 'removed_case' | 'unchanged_passed' | 'unchanged_failed' | 'changed';

export interface RateSide {
  passed: number;
  total: number;
  passRate: number;
}

export interface CaseComparison {
  caseId: string | null;
  title: string;
  query: string;
  status: CaseStatus;
  base: RateSide | null;
  current: RateSide | null;
  difference: number | null;
  differenceInterval: Interval | null;
  pValue: number | null;
  adjustedPValue: number | null;
  significant: boolean;
  iterationsNeeded: number | null;
}

export interface ToolComparison {
  toolName: string;
  base: ToolSide;
  current: ToolSide;
  f1Difference: number | null;
}

export interface Comparison {
  suite: {
    base: RateSide;
    current: RateSide;
    difference: number;
    differenceInterval: Interval;
    pValue: number;
    verdict: 'regressed' | 'improved' | 'no_significant_change';
    counts: Record<CaseStatus, number>;
  };
  cases: CaseComparison[];
  tools: ToolComparison[];
  coverage: {
    source: 'calls';
    /** tools some case expected (on either side) that no iteration of either side called */
    expectedNeverCalled: string[];
    /** tools called on either side that no case expected */
    calledNeverExpected: string[];
  };
  confusions: { base: Confusion[]; current: Confusion[] };
  performance: { base: SideAggregates['performance']; current: SideAggregates['performance'] };
}

const rate = (passed: number, total: number): RateSide => ({
  passed,
  total,
  passRate: total === 0 ? 0 : passed / total,
});

/** Regressions first (most significant first), then fixes, changes, new and removed cases, the unchanged last. */
const statusOrder: Record<CaseStatus, number> = {
  regressed: 0,
  fixed: 1,
  changed: 2,
  new_case: 3,
  removed_case: 4,
  unchanged_failed: 5,
  unchanged_passed: 6,
};

function matchCases(base: CaseAggregate[], current: CaseAggregate[]) {
  const baseByKey = new Map(base.map((c) => [c.key, c]));
  const used = new Set<CaseAggregate>();
  const pairs: { base: CaseAggregate | null; current: CaseAggregate | null }[] = [];
  const unmatched: CaseAggregate[] = [];
  for (const c of current) {
    const b = baseByKey.get(c.key);
    if (b && !used.has(b)) {
      used.add(b);
      pairs.push({ base: b, current: c });
    } else unmatched.push(c);
  }
  const identity = (c: CaseAggregate) => `${c.title}\u0000${c.query}`;
  const leftByIdentity = new Map<string, CaseAggregate>();
  for (const b of base) if (!used.has(b) && !leftByIdentity.has(identity(b))) leftByIdentity.set(identity(b), b);
  for (const c of unmatched) {
    const b = leftByIdentity.get(identity(c));
    if (b && !used.has(b)) {
      used.add(b);
      pairs.push({ base: b, current: c });
    } else pairs.push({ base: null, current: c });
  }
  for (const b of base) if (!used.has(b)) pairs.push({ base: b, current: null });
  return pairs;
}

export function compareSides(base: SideAggregates, current: SideAggregates): Comparison {
  const pairs = matchCases(base.cases, current.cases);
  const matched = pairs.filter((p) => p.base && p.current);
  const pValues = matched.map((p) => fisherExact(p.current!, p.base!));
  const adjusted = benjaminiHochberg(pValues);
  const tested = new Map(matched.map((p, i) => [p, { p: pValues[i], q: adjusted[i] }]));

  const cases: CaseComparison[] = pairs.map((pair) => {
    const one = (pair.current ?? pair.base)!;
    const b = pair.base ? rate(pair.base.passed, pair.base.total) : null;
    const c = pair.current ? rate(pair.current.passed, pair.current.total) : null;
    const test = tested.get(pair);
    const common = { caseId: one.caseId, title: one.title, query: one.query, base: b, current: c };
    if (!b || !c || !test) {
      return {
        ...common,
        status: b ? 'removed_case' : 'new_case',
        difference: null,
        differenceInterval: null,
        pValue: null,
        adjustedPValue: null,
        significant: false,
        iterationsNeeded: null,
      };
    }
    const diff = rateDifference(c, b);
    const significant = test.q <= FALSE_DISCOVERY_RATE;
    const status: CaseStatus =
      significant && diff.value < 0
        ? 'regressed'
        : significant && diff.value > 0
          ? 'fixed'
          : diff.value !== 0
            ? 'changed'
            : c.passRate === 1
              ? 'unchanged_passed'
              : 'unchanged_failed';
    return {
      ...common,
      status,
      difference: diff.value,
      differenceInterval: diff.interval,
      pValue: test.p,
      adjustedPValue: test.q,
      significant,
      iterationsNeeded: iterationsNeeded(c, b),
    };
  });
  cases.sort((x, y) => statusOrder[x.status] - statusOrder[y.status] || (x.pValue ?? 1) - (y.pValue ?? 1));

  const counts = Object.fromEntries(Object.keys(statusOrder).map((s) => [s, 0])) as Record<CaseStatus, number>;
  for (const c of cases) counts[c.status]++;
  const pooledBase = rate(base.performance.passed, base.performance.total);
  const pooledCurrent = rate(current.performance.passed, current.performance.total);
  const pooled = rateDifference(pooledCurrent, pooledBase);
  const pooledP = fisherExact(pooledCurrent, pooledBase);
  const pooledSignificant = pooledP <= FALSE_DISCOVERY_RATE;
  const verdict =
    counts.regressed > 0 || (pooledSignificant && pooled.value < 0)
      ? 'regressed'
      : counts.fixed > 0 || (pooledSignificant && pooled.value > 0)
        ? 'improved'
        : 'no_significant_change';

  const baseTools = new Map(base.tools.map((t) => [t.toolName, t]));
  const currentTools = new Map(current.tools.map((t) => [t.toolName, t]));
  const names = [...new Set([...baseTools.keys(), ...currentTools.keys()])].sort();
  const tools = names.map((toolName) => {
    const b = scoreTool(baseTools.get(toolName));
    const c = scoreTool(currentTools.get(toolName));
    return { toolName, base: b, current: c, f1Difference: b.f1 === null || c.f1 === null ? null : c.f1 - b.f1 };
  });

  return {
    suite: {
      base: pooledBase,
      current: pooledCurrent,
      difference: pooled.value,
      differenceInterval: pooled.interval,
      pValue: pooledP,
      verdict,
      counts,
    },
    cases,
    tools,
    coverage: {
      source: 'calls',
      expectedNeverCalled: tools.filter((t) => t.base.called + t.current.called === 0).map((t) => t.toolName),
      calledNeverExpected: tools.filter((t) => t.base.expected + t.current.expected === 0).map((t) => t.toolName),
    },
    confusions: { base: base.confusions, current: current.confusions },
    performance: { base: base.performance, current: current.performance },
  };
}
