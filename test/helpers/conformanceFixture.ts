/**
 * The conformance fixture (test/fixtures/mcp/conformance-server.ts) for tests: an MCP server of one protocol revision
 * that passes every server scenario the official suite (`@modelcontextprotocol/conformance`) scores for that revision,
 * or fails exactly the scenarios named by the rules it is told to break (BREAKABLE_RULES).
 *
 * It runs in the test's own process, over streamable HTTP on 127.0.0.1 with a free port; the suite (or Runway's
 * worker) reaches it at `url`. Keep the event loop free while something checks it: start the suite as an
 * asynchronous child process, never a synchronous one.
 */
import {
  BREAKABLE_RULES,
  startConformanceServer,
  type BreakableRuleName,
  type ConformanceFixtureRevision,
  type ConformanceRevision,
} from '../fixtures/mcp/conformance-server.js';

export { BREAKABLE_RULES, CONFORMANCE_REVISIONS } from '../fixtures/mcp/conformance-server.js';
export type {
  BreakableRuleName,
  ConformanceFixtureRevision,
  ConformanceRevision,
} from '../fixtures/mcp/conformance-server.js';

export interface ConformanceFixture {
  /** http://127.0.0.1:<port>/mcp */
  url: string;
  revision: ConformanceFixtureRevision;
  /** The rules it breaks: each is the name of the one scored scenario that fails because of it. */
  breaks: readonly BreakableRuleName[];
  close(): Promise<void>;
}

/**
 * Starts the fixture for `revision` (default 2025-11-25; `both`: the two revisions' fixtures behind one URL, as a
 * server speaking both is deployed) breaking the rules named in `break` (default none). Throws for a rule that does
 * not exist or is not scored at that revision (at either, for `both`).
 */
export async function startConformanceFixture(
  options: { revision?: ConformanceFixtureRevision; break?: readonly BreakableRuleName[] } = {},
): Promise<ConformanceFixture> {
  const revision = options.revision ?? '2025-11-25';
  const breaks = [...new Set(options.break ?? [])];
  const server = await startConformanceServer({ revision, break: breaks });
  return { url: server.url, revision, breaks, close: () => server.close() };
}

/** The breakable rules that apply to a revision. */
export function breakableRules(revision: ConformanceRevision): BreakableRuleName[] {
  return (Object.keys(BREAKABLE_RULES) as BreakableRuleName[]).filter((name) =>
    (BREAKABLE_RULES[name].revisions as readonly string[]).includes(revision),
  );
}
