import { closestName } from '../closestName.js';
import type { McpOperations } from '../mcp/index.js';
import type { SavedServer } from '../catalog/server.js';

/** An expected tool that none of the selected servers lists: most likely a typo, and a case that cannot pass. */
export interface UnknownToolWarning {
  reason: 'UNKNOWN_TOOL';
  toolName: string;
  testTitle: string;
  message: string;
}

export interface CaseExpectations {
  title: string;
  expectedToolCalls: ReadonlyArray<{ toolName: string }> | null | undefined;
}

/** How long creating a suite or run waits for the servers' tool lists; past it nothing is checked. */
export const TOOL_CHECK_DEADLINE_MS = 3_000;
/** A request may name thousands of tools; a user reads the first few. */
const MAX_WARNINGS = 50;

/**
 * Warnings for the cases' expected tools that no selected server has. Only advice: it never refuses a run. The
 * servers are listed with a short deadline; when one of them cannot be listed in time (down, slow to start, needs
 * OAuth), nothing can be said about the tools it might have, so there are no warnings at all.
 */
export async function checkExpectedTools(
  mcp: McpOperations,
  servers: readonly SavedServer[],
  cases: readonly CaseExpectations[],
  options: { deadlineMs?: number } = {},
): Promise<UnknownToolWarning[]> {
  if (servers.length === 0 || !cases.some((c) => (c.expectedToolCalls?.length ?? 0) > 0)) return [];
  const listed = await listWithin(mcp, servers, options.deadlineMs ?? TOOL_CHECK_DEADLINE_MS);
  if (!listed) return [];
  const warnings: UnknownToolWarning[] = [];
  const warned = new Set<string>();
  for (const testCase of cases) {
    for (const { toolName } of testCase.expectedToolCalls ?? []) {
      const key = `${testCase.title}\u0000${toolName}`;
      if (listed.has(toolName) || warned.has(key)) continue;
      warned.add(key);
      const meant = closestName(toolName, listed);
      const message = `no tool \`${toolName}\` on the selected servers${meant ? ` (did you mean \`${meant}\`?)` : ''}`;
      warnings.push({ reason: 'UNKNOWN_TOOL', toolName, testTitle: testCase.title, message });
      if (warnings.length === MAX_WARNINGS) return warnings;
    }
  }
  return warnings;
}

/** Every selected server's tool names, or undefined when any of them could not be listed before the deadline. */
async function listWithin(
  mcp: McpOperations,
  servers: readonly SavedServer[],
  deadlineMs: number,
): Promise<Set<string> | undefined> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), deadlineMs);
  });
  const all = Promise.all(servers.map((server) => mcp.listAllTools(server, { signal: controller.signal })))
    .then((lists) => new Set(lists.flat().map((tool) => tool.name)))
    .catch(() => undefined);
  try {
    return await Promise.race([all, deadline]);
  } finally {
    clearTimeout(timer);
    // a listing still going (a server slow to start) stops; its connection stays in the pool for the run
    controller.abort();
  }
}
