import type { Logger } from '../ports/logger.js';
import { limits } from '../limits.js';

/**
 * Bounds on the sessions a process keeps open with nobody using them: a pool's idle sessions and the warm sets of
 * isolated callers. Each is one per client profile (a stdio server's process each), and a tenant makes a profile per
 * host, so without a bound 30 hosts that differ only in their roots leave 30 processes of one server (issue 27).
 */
export interface IdleLimits {
  /** idle and warm sessions of one saved server, across its client profiles */
  perServer: number;
  /** idle and warm sessions of one organization, across its servers */
  perOrganization: number;
}

/** The product's bounds (domain/limits.ts); a test may give others to the pool. */
export const DEFAULT_IDLE_LIMITS: IdleLimits = {
  perServer: limits.idleSessionsPerServer,
  perOrganization: limits.idleSessionsPerOrganization,
};

/** A session kept open with nobody using it. */
export interface Parked {
  /** server and client profile (pool.ts scopeOf) */
  scope: string;
  serverId: string;
  organizationId: string;
  /** closes it (its process exits); called once, when it is evicted */
  evict(): void;
}

/**
 * The idle and warm sessions of a process, least recently used first, shared by the pool and the warm sets so that
 * one bound covers both. Parking a session beyond a bound closes the least recently used ones of the same server
 * (or organization) first. The sessions of the scope just used are never evicted for it: a busy profile's sessions
 * (its lent sessions between calls, its warm set) stay bounded by the pool's own per-scope limits, and what is
 * evicted is what other profiles left behind. Sessions in use are not here and are never closed by it.
 */
export class IdleSessions {
  readonly #limits: IdleLimits;
  readonly #log: Logger;
  /** insertion order: least recently used first */
  readonly #parked = new Set<Parked>();

  constructor(limits: IdleLimits, log: Logger) {
    this.#limits = limits;
    this.#log = log;
  }

  /** The session is idle from now (or used again just now): it is the last to go; others may go for it. */
  park(session: Parked): void {
    this.#parked.delete(session);
    this.#parked.add(session);
    this.#evictBeyond(session, (s) => s.serverId === session.serverId, this.#limits.perServer);
    this.#evictBeyond(session, (s) => s.organizationId === session.organizationId, this.#limits.perOrganization);
  }

  /** The session is in use again, or closed. */
  unpark(session: Parked): void {
    this.#parked.delete(session);
  }

  /** A scope was used now: its idle sessions are the last to be evicted. */
  touch(scope: string): void {
    for (const session of [...this.#parked])
      if (session.scope === scope) {
        this.#parked.delete(session);
        this.#parked.add(session);
      }
  }

  /** Sessions kept open with nobody using them. */
  get size(): number {
    return this.#parked.size;
  }

  #evictBeyond(newest: Parked, counted: (s: Parked) => boolean, limit: number): void {
    const matching = [...this.#parked].filter(counted);
    let excess = matching.length - limit;
    for (const victim of matching) {
      if (excess <= 0) return;
      if (victim.scope === newest.scope) continue;
      this.#parked.delete(victim);
      excess--;
      this.#log.debug(
        { serverId: victim.serverId, organizationId: victim.organizationId },
        'closing the least recently used idle MCP session (over the bound on idle sessions)',
      );
      victim.evict();
    }
  }
}
