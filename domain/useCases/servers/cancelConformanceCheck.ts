import { OPEN_CHECK_STATUSES, type ConformanceCheck } from '../../catalog/conformanceCheck.js';
import { OperationFailure } from '../../failures.js';
import type { ConformanceCheckStore } from '../../ports/conformanceCheckStore.js';
import type { ConformanceCheckWorkflows } from '../../ports/conformanceWorkflows.js';
import type { ServerStore } from '../../ports/serverStore.js';
import type { Principal } from '../../principal.js';
import { CHECK_FAILURE_CODES } from '../../catalog/conformanceCheck.js';
import { requireCheck } from './getConformanceCheck.js';

/**
 * POST /projects/{p}/servers/{s}/conformance/{checkId}/cancel: asks the check's workflow to stop (the worker stops the
 * suite) and records the check cancelled at once, so the server is free for another check. A check that already
 * ended is 409 (CHECK_FINISHED).
 */
export function cancelConformanceCheck(deps: {
  servers: Pick<ServerStore, 'findInVisibleProject' | 'serversNamed'>;
  checks: Pick<ConformanceCheckStore, 'expireLost' | 'find' | 'end'>;
  workflows: Pick<ConformanceCheckWorkflows, 'cancel'>;
}) {
  return async function cancelConformanceCheck(input: {
    principal: Principal;
    projectId: string;
    serverId: string;
    checkId: string;
  }): Promise<ConformanceCheck> {
    const check = await requireCheck(deps, input);
    if (!OPEN_CHECK_STATUSES.includes(check.status))
      throw new OperationFailure('CONFLICT', `the check already ended (${check.status})`, {
        reason: 'CHECK_FINISHED',
        status: check.status,
      });
    await deps.workflows.cancel(check.id);
    await deps.checks.end(check.id, {
      status: 'cancelled',
      code: CHECK_FAILURE_CODES.cancelled,
      message: 'the check was cancelled',
    });
    return (await deps.checks.find(check.serverId, check.id))!;
  };
}

export type CancelConformanceCheck = ReturnType<typeof cancelConformanceCheck>;
