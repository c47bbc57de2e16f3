import {
  CHECK_DEADLINE_MARGIN_MS,
  CHECK_FAILURE_CODES,
  conformanceRefusal,
  defaultConformanceRevision,
  type ConformanceCheck,
} from '../../catalog/conformanceCheck.js';
import { holdRunSlot, withinRunCap, type RunCap } from '../../evals/runCap.js';
import { OperationFailure, refused } from '../../failures.js';
import type { ConformanceRevision } from '../../mcp/conformance/report.js';
import type { ConformanceCheckStore } from '../../ports/conformanceCheckStore.js';
import type { ConformanceCheckWorkflows } from '../../ports/conformanceWorkflows.js';
import type { ServerStore } from '../../ports/serverStore.js';
import type { Principal } from '../../principal.js';
import { requireServer } from '../../access/server.js';

export interface StartConformanceCheckDeps extends RunCap {
  servers: Pick<ServerStore, 'findInVisibleProject' | 'serversNamed'>;
  checks: ConformanceCheckStore;
  workflows: Pick<ConformanceCheckWorkflows, 'start'>;
  /** the check's time limit (CONFORMANCE_TIMEOUT_MS) */
  timeoutMs: number;
}

const running = (check: ConformanceCheck) =>
  new OperationFailure(
    'CONFLICT',
    `a conformance check of this server is already ${check.status} (${check.id}); wait for it to end, or cancel it`,
    { reason: 'CHECK_RUNNING', checkId: check.id, status: check.status },
  );

/**
 * POST /projects/{p}/servers/{s}/conformance (issue 32): a queued conformance check of a saved server, its workflow
 * started (the worker runs the official suite against the server and stores the report). Refused: a server the key
 * cannot see (404), a disabled one (400 SERVER_DISABLED), one the suite cannot reach (stdio, legacy SSE: 422
 * FEATURE_NOT_SUPPORTED, TRANSPORT_NOT_SUPPORTED), one with a check still open (409 CHECK_RUNNING, naming it), an
 * organization at its run cap (429 CONCURRENT_RUN_LIMIT: an open check counts as a running run). A check whose
 * workflow cannot be started ends failed (START_FAILED) and the error goes on.
 */
export function startConformanceCheck(deps: StartConformanceCheckDeps) {
  return async function startConformanceCheck(input: {
    principal: Principal;
    projectId: string;
    serverId: string;
    /** the revision to check at; default: the one the server last spoke, else 2026-07-28 */
    specVersion?: ConformanceRevision;
  }): Promise<ConformanceCheck> {
    const found = await requireServer(deps.servers, input);
    if (!found.enabled)
      throw refused(`server '${found.name}' is disabled; enable it to check its conformance`, {
        reason: 'SERVER_DISABLED',
        serverId: found.id,
      });
    const server = found.open();
    const why = conformanceRefusal(server.transportType);
    if (why)
      throw new OperationFailure('FEATURE_NOT_SUPPORTED', why, {
        reason: 'TRANSPORT_NOT_SUPPORTED',
        transportType: server.transportType,
        serverId: server.id,
      });
    const specVersion = input.specVersion ?? defaultConformanceRevision(server.protocol);
    const { organizationId } = server;
    // The common case answered without the organization's lock; the transaction decides.
    await deps.checks.expireLost(server.id);
    const open = await deps.checks.openCheck(server.id);
    if (open) throw running(open);

    const create = () =>
      deps.checks.transaction(async (tx) => {
        // The server's lock first: a racing start of the same server is told about this check (409), not the cap.
        await tx.lockServer(server.id);
        await tx.expireLost(server.id);
        const other = await tx.openCheck(server.id);
        if (other) throw running(other);
        await holdRunSlot(tx, deps, organizationId);
        const check = await tx.create({
          organizationId,
          projectId: server.projectId,
          serverId: server.id,
          specVersion,
          createdByKeyId: input.principal.keyId,
          timeoutMs: deps.timeoutMs,
          deadlineMarginMs: CHECK_DEADLINE_MARGIN_MS,
        });
        if (check) return check;
        // Only a start that took no lock gets here (the unique index holds regardless).
        throw new OperationFailure('CONFLICT', 'another conformance check of this server was just started', {
          reason: 'CHECK_RUNNING',
        });
      });
    const check = await withinRunCap(deps, organizationId, create);
    try {
      await deps.workflows.start(
        { checkId: check.id, timeoutMs: check.timeoutMs },
        { organizationId, projectId: check.projectId },
      );
    } catch (error) {
      await deps.checks.end(check.id, {
        status: 'failed',
        code: CHECK_FAILURE_CODES.startFailed,
        message: 'the check could not be started (its workflow did not start)',
      });
      throw error;
    }
    return check;
  };
}

export type StartConformanceCheck = ReturnType<typeof startConformanceCheck>;
