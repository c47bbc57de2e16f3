import type { ConformanceCheck } from '../../catalog/conformanceCheck.js';
import type { CheckPosition, ConformanceCheckStore } from '../../ports/conformanceCheckStore.js';
import type { PageCursors } from '../../ports/pageCursors.js';
import type { ServerStore } from '../../ports/serverStore.js';
import type { Principal } from '../../principal.js';
import { requireServer } from '../../access/server.js';

/** GET /projects/{p}/servers/{s}/conformance: the server's checks, newest first, one page at a time. */
export function listConformanceChecks(deps: {
  servers: Pick<ServerStore, 'findInVisibleProject' | 'serversNamed'>;
  checks: Pick<ConformanceCheckStore, 'expireLost' | 'history'>;
  cursors: PageCursors;
}) {
  return async function listConformanceChecks(input: {
    principal: Principal;
    projectId: string;
    serverId: string;
    cursor?: string;
    limit: number;
  }): Promise<{ checks: ConformanceCheck[]; nextCursor?: string }> {
    const server = await requireServer(deps.servers, input);
    const scope = `conformance-checks:${server.id}`;
    const after = input.cursor === undefined ? undefined : deps.cursors.decode<CheckPosition>(scope, input.cursor);
    await deps.checks.expireLost(server.id);
    const rows = await deps.checks.history(server.id, { after, limit: input.limit + 1 });
    const checks = rows.slice(0, input.limit);
    const last = checks.at(-1);
    return {
      checks,
      ...(rows.length > input.limit &&
        last && { nextCursor: deps.cursors.encode(scope, { createdAt: last.createdAt.getTime(), id: last.id }) }),
    };
  };
}

export type ListConformanceChecks = ReturnType<typeof listConformanceChecks>;
