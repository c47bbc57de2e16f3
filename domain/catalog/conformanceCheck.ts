/**
 * A conformance check of a saved server (issue 32): the official MCP conformance suite run against it at one protocol
 * revision, in the worker. It is `queued` when created, `running` once the worker took it, and ends `completed` (with
 * its report and score), `failed` (with why) or `cancelled`. What the suite found is the runner's report
 * (domain/mcp/conformance/report.ts), kept as it came.
 */
import { CONFORMANCE_REVISIONS, type ConformanceReport, type ConformanceRevision } from '../mcp/conformance/report.js';
import { MODERN_REVISION } from '../mcp/protocolEras.js';
import type { SavedServer, ServerProtocol, TransportType } from './server.js';

export const CONFORMANCE_CHECK_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export type ConformanceCheckStatus = (typeof CONFORMANCE_CHECK_STATUSES)[number];

/** Still open: counted against the organization's run cap and blocking another check of its server (until its deadline). */
export const OPEN_CHECK_STATUSES: readonly ConformanceCheckStatus[] = ['queued', 'running'];

export interface ConformanceCheck {
  id: string;
  organizationId: string;
  projectId: string;
  serverId: string;
  specVersion: ConformanceRevision;
  status: ConformanceCheckStatus;
  /** what the suite found; null until the check completed */
  report: ConformanceReport | null;
  /** the report's score (0-100); null until the check completed */
  score: number | null;
  /** why it failed or was cancelled (CHECK_FAILURE_CODES or an OperationFailure's code); null otherwise */
  errorCode: string | null;
  errorMessage: string | null;
  createdByKeyId: string | null;
  /** the time limit the check runs with (CONFORMANCE_TIMEOUT_MS when it was created) */
  timeoutMs: number;
  /** past it, a check still queued or running is taken as lost: it no longer counts nor blocks its server */
  deadlineAt: Date;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/** Why a check ended without a report, besides an OperationFailure's own code (SERVER_UNREACHABLE, ...). */
export const CHECK_FAILURE_CODES = {
  /** the suite did not finish within the check's time limit */
  timeout: 'TIMEOUT',
  /** its workflow could not be started */
  startFailed: 'START_FAILED',
  /** nothing was heard of it past its deadline (its workflow vanished, or its worker died for good) */
  lost: 'CHECK_LOST',
  /** the workflow was cancelled (POST .../conformance/{checkId}/cancel, or an operator) */
  cancelled: 'CANCELLED',
  /** the server was deleted or disabled while the check waited */
  serverGone: 'SERVER_GONE',
  /** the runner failed for a reason of its own */
  internal: 'INTERNAL_ERROR',
} as const;

/** How long past its time limit a check is still waited for (the worker's retries, a slow start) before it is lost. */
export const CHECK_DEADLINE_MARGIN_MS = 2 * 60_000;

/** The transports the suite can reach: it speaks Streamable HTTP to the server (a loopback bridge is not built). */
export function conformanceRefusal(transportType: TransportType): string | undefined {
  if (transportType === 'http') return undefined;
  if (transportType === 'stdio')
    return 'the conformance suite connects to a server over Streamable HTTP: a stdio server cannot be checked (no loopback bridge runs it for the suite); check an HTTP deployment of it instead';
  return 'the conformance suite speaks Streamable HTTP only: a server on the legacy HTTP+SSE transport cannot be checked; check it once it serves Streamable HTTP';
}

/**
 * The revision a check runs at when the caller names none: the one the server last spoke to Runway when the suite
 * carries it (a legacy server that negotiated an older revision is checked at 2025-11-25, the suite's legacy
 * revision), else the modern one.
 */
export function defaultConformanceRevision(protocol: ServerProtocol | null | undefined): ConformanceRevision {
  const known = CONFORMANCE_REVISIONS.find((revision) => revision === protocol?.version);
  if (known) return known;
  if (protocol?.era === 'legacy') return '2025-11-25';
  return MODERN_REVISION;
}

export type CheckedServer = Pick<SavedServer, 'id' | 'name' | 'transportType' | 'enabled' | 'protocol'>;
