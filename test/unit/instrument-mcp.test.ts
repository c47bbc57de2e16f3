import { describe, expect, it } from 'vitest';
import type { McpOperations } from '../../domain/mcp/index.js';
import { createMetrics, instrumentMcp } from '../../runtime/metrics.js';
import type { SavedServer } from '../../domain/catalog/server.js';

describe('instrumentMcp', () => {
  it("times the operations on a server, and hands out an iteration's own sessions as they are", async () => {
    const session = { use: async () => undefined, discard: () => {}, close: async () => {} };
    const mcp = {
      listAllTools: async () => [],
      isolatedSession: () => session,
    } as unknown as McpOperations;
    const metrics = createMetrics();
    const instrumented = instrumentMcp(mcp, metrics);
    // Not a server operation: no server to label, and the session comes back at once, not as a promise.
    expect(instrumented.isolatedSession()).toBe(session);
    await instrumented.listAllTools({ id: 'srv_1', transportType: 'stdio' } as SavedServer);
    const timed = await metrics.mcpCallDuration.get();
    expect(timed.values.find((v) => v.metricName?.endsWith('_count'))?.labels).toMatchObject({
      server_id: 'srv_1',
      operation: 'listAllTools',
      outcome: 'ok',
    });
  });
});
