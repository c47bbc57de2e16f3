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
 * Suite verdict: it follows from the cases' verdicts, so a CI gate can always name the cases it rests on. `regressed`
 * when a matched case regressed significantly; otherwise `improved` when one was fixed; otherwise
 * `no_significant_change`. A regression wins over an improvement: it is what a CI gate must see. New and removed
 * cases are counted and reported, never a regression by themselves (an ingested case renamed is one of each).
 * `verdictReason` says it in words.
 *
 * `suite.pooled` is Fisher's test on the pass/fail counts of the matched cases' iterations pooled: reported beside
 * the verdict (a broad, small slide shows there first), outside the Benjamini-Hochberg family, and never deciding.
 * `suite.base` / `suite.current` and their difference describe every finished iteration of each side.
 */
import type { CaseAggregate, Confusion, SideAggregates } from './aggregates.js';
import type { Interval } from '../statistics.js';
import { iterationsNeeded } from './power.js';
import { nonInferiority, type NonInferiority } from './nonInferiority.js';
import { benjaminiHochberg, fisherExact, rateDifference, sumCounts } from './statistics.js';
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

/** Fisher's test on the matched cases' iterations pooled: reported, never deciding the verdict. */
export interface PooledTest {
  base: RateSide;
  current: RateSide;
  difference: number;
  differenceInterval: Interval;
  pValue: number;
  decides: false;
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
    verdict: 'regressed' | 'improved' | 'no_significant_change';
    verdictReason: string;
    counts: Record<CaseStatus, number>;
    pooled: PooledTest;
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
  /** with a margin: is the current side no worse than the base by more than it (nonInferiority.ts) */
  nonInferiority?: NonInferiority;
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

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The verdict in words: which cases it rests on, and what was counted beside it. */
function verdictReason(counts: Record<CaseStatus, number>, matched: number): string {
  const of = `of ${plural(matched, 'matched case')}`;
  const lead =
    counts.regressed > 0
      ? `${counts.regressed} ${of} regressed significantly (Benjamini-Hochberg, false-discovery rate 5%)`
      : counts.fixed > 0
        ? `${counts.fixed} ${of} improved significantly and none regressed (Benjamini-Hochberg, false-discovery rate 5%)`
        : counts.changed > 0
          ? `no case changed significantly (${plural(counts.changed, 'case')} moved within noise)`
          : 'no case changed significantly';
  const extra = counts.new_case + counts.removed_case;
  return extra === 0
    ? lead
    : `${lead}; ${counts.new_case} new and ${counts.removed_case} removed ${extra === 1 ? 'case' : 'cases'} reported, not judged`;
}

function pooledTest(matched: { base: CaseAggregate; current: CaseAggregate }[]): PooledTest {
  const b = sumCounts(matched.map((m) => m.base));
  const c = sumCounts(matched.map((m) => m.current));
  const diff = rateDifference(c, b);
  return {
    base: rate(b.passed, b.total),
    current: rate(c.passed, c.total),
    difference: diff.value,
    differenceInterval: diff.interval,
    pValue: fisherExact(c, b),
    decides: false,
  };
}

export function compareSides(
  base: SideAggregates,
  current: SideAggregates,
  options: { margin?: number } = {},
): Comparison {
  const pairs = matchCases(base.cases, current.cases);
  const matched = pairs.filter((p): p is { base: CaseAggregate; current: CaseAggregate } => !!p.base && !!p.current);
  const pValues = matched.map((p) => fisherExact(p.current, p.base));
  const adjusted = benjaminiHochberg(pValues);
  const tested = new Map<object, { p: number; q: number }>(
    matched.map((p, i) => [p, { p: pValues[i], q: adjusted[i] }]),
  );

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
  const all = rateDifference(
    rate(current.performance.passed, current.performance.total),
    rate(base.performance.passed, base.performance.total),
  );
  const verdict = counts.regressed > 0 ? 'regressed' : counts.fixed > 0 ? 'improved' : 'no_significant_change';
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
      base: rate(base.performance.passed, base.performance.total),
      current: rate(current.performance.passed, current.performance.total),
      difference: all.value,
      differenceInterval: all.interval,
      verdict,
      verdictReason: verdictReason(counts, matched.length),
      counts,
      pooled: pooledTest(matched),
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
    ...(options.margin !== undefined && { nonInferiority: nonInferiority(matched, options.margin) }),
  };
}
