import type { ConformanceCheck } from '../../catalog/conformanceCheck.js';
import { notFound } from '../../failures.js';
import type { ConformanceCheckStore } from '../../ports/conformanceCheckStore.js';
import type { ServerStore } from '../../ports/serverStore.js';
import type { Principal } from '../../principal.js';
import { requireServer } from '../../access/server.js';

/**
 * GET /projects/{p}/servers/{s}/conformance/{checkId}: one check of the server, with its report once completed. A
 * check left open past its deadline (its workflow vanished) is ended as lost first, so it reads as what it is.
 */
export function getConformanceCheck(deps: {
  servers: Pick<ServerStore, 'findInVisibleProject' | 'serversNamed'>;
  checks: Pick<ConformanceCheckStore, 'expireLost' | 'find'>;
}) {
  return async function getConformanceCheck(input: {
    principal: Principal;
    projectId: string;
    serverId: string;
    checkId: string;
  }): Promise<ConformanceCheck> {
    return requireCheck(deps, input);
  };
}

/** A check of a server the key may see (404 otherwise), ended as lost first if its workflow vanished. */
export async function requireCheck(
  deps: {
    servers: Pick<ServerStore, 'findInVisibleProject' | 'serversNamed'>;
    checks: Pick<ConformanceCheckStore, 'expireLost' | 'find'>;
  },
  input: { principal: Principal; projectId: string; serverId: string; checkId: string },
): Promise<ConformanceCheck> {
  const server = await requireServer(deps.servers, input);
  await deps.checks.expireLost(server.id);
  const check = await deps.checks.find(server.id, input.checkId);
  if (!check) throw notFound('conformance check', { checkId: input.checkId, serverId: server.id });
  return check;
}

export type GetConformanceCheck = ReturnType<typeof getConformanceCheck>;
