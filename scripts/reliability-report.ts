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
  and trace are written in one transaction by the first writer only, with the time it started. Claims are fenced
  by attempt: each attempt of a batch stamps the batch's unfinished iterations with its attempt number, and only the
  attempt stamped last may claim or complete them, so a paused worker that wakes up after its batch was retried
  runs and stores nothing (and a batch counts only the outcomes it stored). An attempt whose process stood still
  for 5 s or more (paused, frozen, starved of CPU; a third of the 15 s heartbeat timeout) claims and stores nothing
  more even before a newer attempt fenced the batch: its timers fired late and Temporal may have given up on it
  (activities/attemptLiveness.ts). The workflow (\`workflows/evalRun.ts\`) finalizes every run, also after a
  failure or a cancellation, and only once every batch in flight has stopped: a cancel, or a batch that fails for
  good, cancels the other batches and waits for them before the run is finalized. A run the user cancelled ends
  \`cancelled\`, also when its batches sat on a dead worker and could only time out.
- **Faults are survived:** a worker killed or paused mid-run (its in-flight batch is retried after the heartbeat
  timeout), a Temporal restart, a Postgres restart or crash and an API restart each leave the run to complete with
  every iteration exactly once. While Postgres is away a batch waits for it, heartbeating, and stores the results it
  holds once it is back (activities/databaseWait.ts): model work already paid for is kept, and the pool reconnects
  within a second of the database's return (db/connection.ts).
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
database, API and worker processes, the scripted model with ${faults.modelDelayMs} ms per call; server-everything over stdio, a process per
iteration, where the fault hits the worker or Postgres, and over streamable HTTP where it hits Temporal or the API)
and injects the fault during a run of ${faults.iterationsPerRun} iterations. Wall time of the file: ${seconds(faults.wallTimeMs)}.

| scenario | fault | iterations | finished before | duplicates | re-run in-flight | model calls | run took |
|---|---|---|---|---|---|---|---|
${faults.scenarios.map((s: any) => `| ${s.scenario} | ${s.fault} | ${s.iterations} | ${s.finishedBeforeFault} | ${s.duplicates} | ${s.restartedInFlight} | ${s.modelCalls} | ${seconds(s.runDurationMs)} |`).join('\n')}

"Re-run in-flight" counts iterations that were running when the fault hit and ran again (their model calls are the
only extra ones: ${faults.iterationsPerRun} iterations make ${faults.iterationsPerRun * 2} calls); no finished iteration called the model twice, and
no finished iteration lacks the time it started. After the Postgres crash, at most one model call per lane may be
repeated (a result waits for the database instead). After the pause, none of the iterations the paused attempts held
was stored by them. The same file cancels a run while the only worker holding its batches is SIGKILLed: once a new
worker runs the workflow, the run ends \`cancelled\` (not \`failed\` by the batches' heartbeat timeouts), every
iteration either completed before the cancel or kept as cancelled.
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

sections.push('## Malformed and hostile requests (test/reliability/fuzz.test.ts)\n');
if (fuzz) {
  const statuses = (counts: Record<string, number>) =>
    Object.entries(counts)
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ');
  const classes = Object.entries(
    (fuzz.classes ?? {}) as Record<string, { requests: number; statuses: Record<string, number> }>,
  )
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, c]) => `| ${name} | ${c.requests} | ${statuses(c.statuses)} |`);
  sections.push(`${fuzz.requests.toLocaleString('en')} generated requests (fast-check, fixed seed) over all ${fuzz.routes} routes plus unknown ones. The fields
come from each route's own body and query schema (nested ones too), so a new field is fuzzed without being listed:

- **malformed requests:** invalid JSON, non-object bodies, bodies over the size limits, wrong content types, missing
  and forged keys, huge and hostile path segments (invalid UTF-8, NUL), unknown routes;
- **wrong types** for every typed field, top-level and nested;
- **text:** lone surrogates and NUL in every string and object key (refused with a 400 naming the field);
  multi-byte, astral, combining, bidi and noncharacter text, and long text that does not compress, in every
  string (stored as given); \`__proto__\`-style keys;
- **numbers** at and past 2^31 and 2^53, both signs, epoch milliseconds past the year 9999, and JSON numbers beyond
  a double (\`1e400\`), in every number field and numeric query parameter;
- **nesting** from 1 to 100,000 levels, arrays and objects, inside otherwise valid bodies (tool parameters, host
  capability objects, trace content) and beside them;
- **cursors:** multi-byte signatures, wrong shapes, valid-looking payloads under a forged signature;
- **artifacts:** Jest, Vitest and JUnit reports with wrong types, hostile text and numbers, deep nesting and broken
  structure, each uploaded (${fuzz.artifactUploads ?? 0} in all) to an upload URL of its own, minted through the API.

| class | requests | replies |
|---|---|---|
${classes.join('\n')}

All replies: ${statuses(fuzz.statuses)}. Requests that may legitimately succeed (a boundary value in an otherwise valid
body) go to a sandbox organization, so that they reach the handlers and the database; the others aim at real ids
with a value that must be refused, or at ids that do not exist. **No 5xx, no hang (10 s limit each), every error
in the envelope; outside the sandbox the database is unchanged (a digest of every table before and after); inside
it every new host, suite and run belongs to a 2xx reply, and every refused upload left its URL unused.**

What the edge holds every request to: JSON nested at most 64 levels and at most 1,000,000 values per body (one
iterative walk, api/jsonLimits.ts); no NUL or lone surrogate in any string or key of a body, query or path (a 400;
a test report's captured output instead gets U+FFFD, as the text a tool wrote); integers bounded to what their
column holds (int4) and epoch milliseconds to years 1 to 9999 (domain/columnLimits.ts); uploaded reports checked by
schemas that name the wrong field (e.g. \`testResults[3].assertionResults[0]\`).

Bugs this class of input found, all fixed: a NUL byte in an id or a body reached Postgres as a 500; and (issue 13)
a cursor with a multi-byte signature, a body nested 200,000 levels, a \`before\` past the year 9999, ingest token
counts past int4, lone surrogates in jsonb fields, wrong types inside Jest reports and a case whose prompt was too
long for its btree index each answered 500 or lost the case; a URL past Node's 16 KB header limit got a bare 431
without the envelope.
`);
} else sections.push(missing('fuzz', 'npx vitest run test/reliability/fuzz.test.ts'));

sections.push(`## Outbound requests a caller could steer (test/integration/outbound-requests.test.ts)

No request goes anywhere a caller chose. MCP connections go to the saved server's URL, which only an operator sets.
OAuth discovery, refresh and machine-to-machine token requests, and doctor's probe, go only to the saved server, the
protected-resource and authorization-server metadata it advertises (or the authorization server an operator set),
and the token endpoint that metadata names on that server's own origin; the authorization server is pinned with the
grant. Every one of these requests is checked against the address it actually connects to, after DNS resolution:
link-local and cloud-metadata addresses never, loopback and private ranges only when the saved server itself lives
there; redirects only within the same origin, at most 3. A failed refresh is stored and logged as a fixed code with
at most an HTTP status, never a remote body; no database transaction is open while the authorization server is
called. The tests run a fake authorization server and a fake internal service on loopback and assert that neither
the saved client secret nor any byte of the internal service's reply leaves or comes back, that a caller's
\`authorizationServerUrl\` gets no request at all, that a token endpoint on another origin gets none, that a
cross-origin redirect does not carry a saved header, and that no connection stays idle in a transaction during a
slow refresh. The rules in full: docs/SECURITY.md.
`);

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
