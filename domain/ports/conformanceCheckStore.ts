import type { ConformanceCheck } from '../catalog/conformanceCheck.js';
import type { ConformanceReport, ConformanceRevision } from '../mcp/conformance/report.js';

/**
 * What the conformance check stories (domain/useCases/servers) and the worker's check activity need from storage,
 * declared here and implemented outside the domain (db/conformanceChecks.ts).
 */

export interface NewConformanceCheck {
  organizationId: string;
  projectId: string;
  serverId: string;
  specVersion: ConformanceRevision;
  createdByKeyId: string | null;
  timeoutMs: number;
  /** how long past timeoutMs the check is still waited for before it is taken as lost */
  deadlineMarginMs: number;
}

/** Where a page of a server's history starts: after this check (newest first). */
export interface CheckPosition {
  createdAt: number;
  id: string;
}

export interface ConformanceCheckStore {
  /**
   * Ends the server's open checks whose deadline passed (failed, CHECK_LOST): what a vanished workflow left behind no
   * longer blocks the server. How many it ended.
   */
  expireLost(serverId: string): Promise<number>;
  /** The server's open check (queued or running, before its deadline), if any. */
  openCheck(serverId: string): Promise<ConformanceCheck | undefined>;
  /**
   * Takes the server's check-creation lock until the transaction ends, so that racing starts of one server see each
   * other's check (only inside `transaction`; taken before the organization's lock).
   */
  lockServer(serverId: string): Promise<void>;
  /**
   * Takes the organization's run-creation lock until the transaction ends and counts what its run cap counts
   * (running runs and open checks): the same lock and count as creating a run (only inside `transaction`).
   */
  lockActiveRuns(organizationId: string): Promise<number>;
  /** A new queued check; undefined when the server already has an open one (the unique index: a racing start). */
  create(check: NewConformanceCheck): Promise<ConformanceCheck | undefined>;
  /** A check of the server by id. */
  find(serverId: string, checkId: string): Promise<ConformanceCheck | undefined>;
  /** A check by id alone (the worker). */
  byId(checkId: string): Promise<ConformanceCheck | undefined>;
  /** One page of the server's checks, newest first, after `after`. */
  history(serverId: string, page: { after?: CheckPosition; limit: number }): Promise<ConformanceCheck[]>;
  /** queued -> running (a retried attempt: running again); undefined when the check is no longer open. */
  markRunning(checkId: string): Promise<ConformanceCheck | undefined>;
  /** An open check completes with its report; false when it had already ended. */
  complete(checkId: string, report: ConformanceReport): Promise<boolean>;
  /** An open check fails or is cancelled with why; false when it had already ended. */
  end(checkId: string, ending: { status: 'failed' | 'cancelled'; code: string; message: string }): Promise<boolean>;
  transaction<T>(work: (tx: ConformanceCheckStore) => Promise<T>): Promise<T>;
}
