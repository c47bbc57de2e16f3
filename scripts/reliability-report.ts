/**
 * Writes docs/RELIABILITY.md from the figures the reliability tests record in test-results/reliability/*.json
 * (fuzz, isolation, secrets, faults, load). Run it after `npm test` (or `npm run test:faults`):
 *
 *   npm run docs:reliability
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const figures = (name: string): any => {
  const file = `${root}test-results/reliability/${name}.json`;
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
};
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const fuzz = figures('fuzz');
const isolation = figures('isolation');
const secrets = figures('secrets');
const faults = figures('faults');
const load = figures('load');
const missing = (what: string, test: string) => `_Not recorded in the last run: run \`${test}\` first._\n`;

const sections: string[] = [];
sections.push(`# Reliability

What Runway guarantees, how each guarantee is tested, and the figures of the last recorded run. Every figure below
is written by the tests themselves into \`test-results/reliability/*.json\` and rendered by
\`npm run docs:reliability\` (scripts/reliability-report.ts); the tests run in \`npm test\` and in CI.

## Guarantees

- **No lost or duplicated iteration.** Each planned iteration is a row keyed by (run, case, iteration number),
  written once as pending; an iteration that finished is never run again (a retried batch skips it), its result
  and trace are written in one transaction by the first writer only. The workflow (\`workflows/evalRun.ts\`)
  finalizes every run, also after a failure or a cancellation.
- **Faults are survived:** a worker killed mid-run (its in-flight batch is retried after the heartbeat timeout),
  a Temporal restart, a Postgres restart and an API restart each leave the run to complete with every iteration
  exactly once.
- **Every malformed request gets a well-formed 4xx**, never a 5xx or a hang, and writes nothing.
- **Organizations are isolated:** any id of another organization answers 404 on every route and leaks nothing.
- **Secrets stay secret:** per-run model keys, provider keys, OAuth tokens and client secrets, saved headers and
  env, and API keys appear in no workflow history, log line, API reply or plain database column.
- **Limits hold across replicas:** the per-key rate limit and the per-organization run cap are enforced in
  Postgres, so they hold exactly with several API processes.
`);

sections.push('## Faults during a run (test/faults)\n');
if (faults) {
  sections.push(`Each scenario runs a real stack as separate processes (own PostgreSQL, own Temporal dev server with a persistent
database, API and worker processes, server-everything over stdio, the scripted model with ${faults.modelDelayMs} ms per call)
and injects the fault during a run of ${faults.iterationsPerRun} iterations. Wall time of the four: ${seconds(faults.wallTimeMs)}.

| scenario | fault | iterations | finished before | duplicates | re-run in-flight | model calls | run took |
|---|---|---|---|---|---|---|---|
${faults.scenarios.map((s: any) => `| ${s.scenario} | ${s.fault} | ${s.iterations} | ${s.finishedBeforeFault} | ${s.duplicates} | ${s.restartedInFlight} | ${s.modelCalls} | ${seconds(s.runDurationMs)} |`).join('\n')}

"Re-run in-flight" counts iterations that were running when the fault hit and ran again (their model calls are the
only extra ones: ${faults.iterationsPerRun} iterations make ${faults.iterationsPerRun * 2} calls); no finished iteration called the model twice.
`);
} else sections.push(missing('faults', 'npx vitest run test/faults'));

sections.push('## Load: two APIs, two workers, twenty organizations (test/load)\n');
if (load) {
  sections.push(`${load.organizations} organizations each sent ${load.postsPerOrganization} run creations at once, spread over ${load.apiProcesses} API processes,
with ${load.workerProcesses} worker processes and a cap of ${load.maxConcurrentRuns} running runs per organization.

- accepted: ${load.acceptedRuns}, refused with CONCURRENT_RUN_LIMIT: ${load.rejectedConcurrentRunLimit}; most running at once for one organization
  (sampled ${load.runningSamples} times in SQL): **${load.maxRunningPerOrganizationSeen}**
- runs completed: ${load.runsCompleted} of ${load.acceptedRuns} (${load.iterationsCompleted} iterations) in ${seconds(load.allRunsFinishedMs)}
- rate limit, burst ${load.rateLimit.burst}, ${load.rateLimit.requestsPerKey} requests per key split over both APIs: passed ${load.rateLimit.passedPerKey.join(', ')}, refused ${load.rateLimit.rejectedPerKey.join(', ')}
`);
} else sections.push(missing('load', 'npx vitest run test/load'));

sections.push('## Malformed requests (test/reliability/fuzz.test.ts)\n');
if (fuzz) {
  const statuses = Object.entries(fuzz.statuses as Record<string, number>).map(([s, n]) => `${s}: ${n}`).join(', ');
  sections.push(`${fuzz.requests.toLocaleString('en')} generated requests (fast-check, fixed seed) over all ${fuzz.routes} routes plus unknown ones: wrong types for
every typed body field, invalid JSON, non-object bodies, 1,000–100,000-deep nesting, bodies over the size limits,
huge and hostile path segments, bad query values and cursors, wrong content types, missing and forged keys.
Replies: ${statuses}. **No 5xx, no hang (10 s limit each), every error in the envelope, and the database unchanged**
(a digest of every table before and after). The fuzzer found one bug, fixed: a NUL byte in an id or a body reached
Postgres as a 500; ids are now validated at the edge and NUL in a body is a 400.
`);
} else sections.push(missing('fuzz', 'npx vitest run test/reliability/fuzz.test.ts'));

sections.push('## Isolation matrix (test/integration/isolation.test.ts)\n');
if (isolation) {
  sections.push(`With a key of organization A, every one of the ${isolation.routes} routes that take ids was called with organization B's ids
(${isolation.idKinds.join(', ')}): all ${isolation.checked} answered 404 NOT_FOUND and no reply contained B's names. Listings without ids
showed nothing of B.
`);
} else sections.push(missing('isolation', 'npx vitest run test/integration/isolation.test.ts'));

sections.push('## Secrets (test/reliability/secrets.test.ts)\n');
if (secrets) {
  sections.push(`After a full run (OAuth-protected server with imported tokens, saved headers and env, a per-run model key, the
organization's provider key), the ${secrets.secrets.length} secret values (${secrets.secrets.join(', ')}) were searched in the run's Temporal
history (${secrets.places.history.toLocaleString('en')} chars), the logs (${secrets.places.logs.toLocaleString('en')} chars), ${secrets.replies} API replies and every plain database column:
found ${secrets.found.length === 0 ? 'none' : secrets.found.join(', ')}.
`);
} else sections.push(missing('secrets', 'npx vitest run test/reliability/secrets.test.ts'));

writeFileSync(`${root}docs/RELIABILITY.md`, sections.join('\n'));
console.log('wrote docs/RELIABILITY.md');
