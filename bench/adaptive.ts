/**
 * Adaptive iterations (issue 31): model calls saved at equal error rates. A pure simulation (no servers): cases with
 * known true pass rates, compared with a baseline run of maxIterations iterations, run adaptively
 * (domain/evals/compare/sequential.ts: rounds, alpha spent across the planned looks, futility stops) and as a
 * fixed-n run of maxIterations with Fisher at alpha. Both promise a false regressed-or-fixed rate of at most alpha
 * per case; the row reports the calls each spends, the false-decision rate each reaches under no change, and how
 * often the adaptive verdict is the fixed-n one on real changes.
 *
 *   node --import tsx bench/adaptive.ts [firstRound=10] [maxIterations=50] [replications=4000]
 *
 * Prints a readable report, then one `BENCH {json}` line (bench/run.ts collects it).
 */
import { adaptiveDesign } from '../domain/evals/compare/sequential.js';
import { seededRandom, simulate, type Scenario } from './adaptiveSimulation.js';

const firstRound = Number(process.argv[2] ?? 10);
const maxIterations = Number(process.argv[3] ?? 50);
const replications = Number(process.argv[4] ?? 4000);
const design = adaptiveDesign(firstRound, maxIterations);

// A suite as CI sees it: most cases unchanged (at various pass rates), a few changed.
const unchanged: Scenario[] = [0.3, 0.5, 0.7, 0.9, 1].map((r) => ({ base: r, current: r }));
const changed: Scenario[] = [
  { base: 1, current: 0.7 },
  { base: 0.9, current: 0.5 },
  { base: 0.8, current: 0.5 },
  { base: 0.5, current: 0.9 },
];
const random = seededRandom(31);
const run = (scenarios: Scenario[]) => scenarios.map((s) => ({ s, r: simulate(design, s, replications, random) }));
const nulls = run(unchanged);
const alts = run(changed);

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
console.log(`first round ${firstRound}, at most ${maxIterations} per case, ${replications} replications per scenario`);
for (const { s, r } of [...nulls, ...alts]) {
  console.log(
    `  ${s.base.toFixed(2)} -> ${s.current.toFixed(2)}: calls ${r.adaptiveCalls.toFixed(1)} vs ${r.fixedCalls}; decided adaptive ${pct(r.adaptiveDecided)}, fixed-n ${pct(r.fixedDecided)}, naive peeking ${pct(r.naiveDecided)}; same verdict ${pct(r.agreement)}`,
  );
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
// 90 unchanged cases and 10 changed ones, the scenarios equally weighted within each group
const callsAdaptive = 0.9 * mean(nulls.map((x) => x.r.adaptiveCalls)) + 0.1 * mean(alts.map((x) => x.r.adaptiveCalls));
const falseAdaptive = Math.max(...nulls.map((x) => x.r.adaptiveDecided));
const falseFixed = Math.max(...nulls.map((x) => x.r.fixedDecided));
const falseNaive = Math.max(...nulls.map((x) => x.r.naiveDecided));
const agreement = mean(alts.map((x) => x.r.agreement));
console.log(
  `suite of 90 unchanged + 10 changed cases: ${callsAdaptive.toFixed(1)} calls per case vs ${maxIterations} (${pct(1 - callsAdaptive / maxIterations)} saved); worst false-decision rate adaptive ${pct(falseAdaptive)}, fixed-n ${pct(falseFixed)}, naive peeking ${pct(falseNaive)}; same verdict as fixed-n on changed cases ${pct(agreement)}`,
);
console.log(
  `BENCH ${JSON.stringify({
    benchmark: `adaptive iterations: model calls per case at equal error rates (alpha 0.05; first round ${firstRound}, at most ${maxIterations}; 90% unchanged cases)`,
    ours: callsAdaptive,
    baseline: maxIterations,
    unit: 'calls',
    ratio: callsAdaptive / maxIterations,
    target: 'fewer calls; false decisions <= 5% under no change',
    met: callsAdaptive < maxIterations && falseAdaptive <= 0.05,
    falseDecisionRate: { adaptive: falseAdaptive, fixed: falseFixed, naivePeeking: falseNaive },
    agreementOnChanges: agreement,
  })}`,
);
