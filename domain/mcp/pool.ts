import type { Logger } from '../ports/logger.js';
import { OperationFailure } from '../failures.js';
import { profileKey } from './clientProfile.js';
import type { ClientAnswers } from './clientRequests.js';
import { ProtocolEras } from './protocolEras.js';
import { openConnection, type ConnectTarget, type McpConnection } from './connection.js';
import { DEFAULT_IDLE_LIMITS, IdleSessions, type IdleLimits, type Parked } from './idleSessions.js';
import { isolatedSession, WarmSessions, type IsolatedSession, type SessionSource } from './isolatedSessions.js';

export interface PoolOptions {
  /** a connection nobody used for this long is closed (its child process exits) */
  idleTimeoutMs: number;
  log: Logger;
  /** how sessions are opened; the real one unless a test needs another */
  open?: (target: ConnectTarget) => Promise<McpConnection>;
  /** sessions of one server and client profile lent to operations at once; more wait for one to be returned */
  maxLentSessions?: number;
  /** sessions opened ahead per server and client profile for isolated callers (eval iterations); default 2 */
  warmSessions?: number;
  /** idle and warm sessions kept per server and per organization, across client profiles (idleSessions.ts) */
  idleLimits?: IdleLimits;
}

interface Entry {
  /** revision and OAuth token generation: a session of an older key is retired */
  key: string;
  /** server and client profile: sessions never serve another scope */
  scope: string;
  serverId: string;
  organizationId: string;
  ready: Promise<McpConnection>;
  connection?: McpConnection;
  /** shared by every operation, or lent to the operations of one `lease` at a time */
  kind: 'shared' | 'lent';
  /** the answers of the operation it is lent to (lent sessions in use) */
  lease: ClientAnswers | null;
  /** operations currently using it */
  active: number;
  /** superseded (edited server, new tokens) or broken: closed as soon as nobody uses it */
  retired: boolean;
  idleTimer?: NodeJS.Timeout;
  /** its place among the process's idle sessions while nobody uses it */
  parked?: Parked;
}

const DEFAULT_MAX_LENT_SESSIONS = 16;
const DEFAULT_WARM_SESSIONS = 2;

/** Sessions serve one scope (server and client profile); a key (revision, token generation) ages them out. */
function scopeOf(target: ConnectTarget): { scope: string; key: string } {
  return {
    scope: `${target.server.id}|${profileKey(target.profile ?? target.server.clientProfile)}`,
    key: `${target.server.revision}:${target.credentials?.generation ?? 0}`,
  };
}

/**
 * The process's live MCP sessions, so a stdio server is spawned once, not per request. Every session belongs to a
 * scope, a saved server and the client profile it was initialized with (what the client declared), and serves only
 * operations of that scope:
 * - operations without answers of their own share one session per scope;
 * - an operation that answers the server's requests itself (an elicitation answer, an eval run's model for
 *   sampling) is lent a session of the scope that nobody else uses meanwhile, since a server's request cannot be
 *   told apart by the call it belongs to (stdio and SSE carry no such link). Lent sessions are kept and lent again.
 * The key holds the server's revision and OAuth token generation, so an edited server or newly imported/refreshed
 * tokens get fresh sessions while the old ones finish their in-flight calls.
 */
export class ConnectionPool implements SessionSource {
  /** live sessions (not retired) per scope */
  readonly #scopes = new Map<string, Entry[]>();
  readonly #all = new Set<Entry>();
  /** closes under way (retired or idle sessions), so close() can wait for their children too */
  readonly #closing = new Set<Promise<void>>();
  /** operations waiting for a lent session of a full scope */
  #waiting: Array<() => void> = [];
  readonly #options: PoolOptions;
  readonly #open: (target: ConnectTarget) => Promise<McpConnection>;
  readonly #warm: WarmSessions;
  /** the idle sessions here and the warm ones, bounded together across client profiles */
  readonly #idle: IdleSessions;
  #closed = false;
  /** the protocol era each server spoke, so its next session skips the probe (shared by every session source) */
  readonly eras = new ProtocolEras();

  constructor(options: PoolOptions) {
    this.#options = options;
    this.#open = options.open ?? openConnection;
    this.#idle = new IdleSessions(options.idleLimits ?? DEFAULT_IDLE_LIMITS, options.log);
    this.#warm = new WarmSessions({
      open: this.#open,
      warmSessions: options.warmSessions ?? DEFAULT_WARM_SESSIONS,
      idleTimeoutMs: options.idleTimeoutMs,
      log: options.log,
      scopeOf,
      idle: this.#idle,
    });
  }

  /**
   * Sessions for one caller alone (an eval iteration): fresh ones (a new process for stdio, a new MCP session over
   * HTTP), taken from sessions opened ahead, used by nobody else, and closed by the caller when it ends.
   */
  isolated(): IsolatedSession {
    return isolatedSession(this.#warm, scopeOf);
  }

  /**
   * Runs `work` on a session of the target's scope, opening it first when there is none (once, however many wait).
   * With `lease`, the session is the operation's alone while it runs, and its server's requests go to `lease`.
   */
  async use<T>(
    target: ConnectTarget,
    work: (connection: McpConnection) => Promise<T>,
    lease?: ClientAnswers,
  ): Promise<T> {
    const entry = lease ? await this.#lend(target, lease) : this.#acquire(target);
    try {
      const connection = await entry.ready;
      if (lease) connection.lease = lease;
      return await work(connection);
    } finally {
      entry.active--;
      this.#released(entry);
    }
  }

  /** Stops handing out a session that failed at the connection level; the next operation opens a new one. */
  discard(connection: McpConnection): void {
    for (const entry of this.#all) if (entry.connection === connection) this.#retire(entry);
  }

  /** Sessions currently open or opening (the warm ones of isolated callers aside). */
  get size(): number {
    return this.#all.size;
  }

  /** Sessions kept open with nobody using them: idle ones here and warm ones, at most the idle limits allow. */
  get idleSize(): number {
    return this.#idle.size;
  }

  /** Closes every session and waits for every child process to exit. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#wake();
    await Promise.all([
      this.#warm.close(),
      ...[...this.#all].map((entry) => this.#closeEntry(entry)),
      ...this.#closing,
    ]);
  }

  /** The scope's live sessions, once those of an older key are retired. */
  #live(target: ConnectTarget): { scope: string; key: string; entries: Entry[] } {
    if (this.#closed) throw new OperationFailure('INTERNAL_ERROR', 'the MCP connection pool is shutting down');
    const { scope, key } = scopeOf(target);
    // Whatever its scope, a session of an edited server or of replaced tokens is not used again.
    for (const entry of this.#all)
      if (entry.serverId === target.server.id && entry.key !== key && !entry.retired) this.#retire(entry);
    return { scope, key, entries: this.#scopes.get(scope) ?? [] };
  }

  #acquire(target: ConnectTarget): Entry {
    const { scope, key, entries } = this.#live(target);
    const entry = entries.find((e) => e.kind === 'shared') ?? this.#create(target, scope, key, 'shared');
    this.#take(entry);
    return entry;
  }

  async #lend(target: ConnectTarget, lease: ClientAnswers): Promise<Entry> {
    for (;;) {
      const { scope, key, entries } = this.#live(target);
      const lent = entries.filter((e) => e.kind === 'lent');
      // The same operation's concurrent calls (an agent step calling several tools) share its session.
      const entry =
        lent.find((e) => e.lease === lease) ??
        lent.find((e) => e.lease === null) ??
        (lent.length < (this.#options.maxLentSessions ?? DEFAULT_MAX_LENT_SESSIONS)
          ? this.#create(target, scope, key, 'lent')
          : undefined);
      if (entry) {
        entry.lease = lease;
        this.#take(entry);
        return entry;
      }
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
  }

  /** An operation uses the session: it is not idle (nor evicted) while it does. */
  #take(entry: Entry): void {
    entry.active++;
    if (entry.parked) this.#idle.unpark(entry.parked);
    this.#idle.touch(entry.scope);
  }

  #create(target: ConnectTarget, scope: string, key: string, kind: Entry['kind']): Entry {
    const entry: Entry = {
      key,
      scope,
      serverId: target.server.id,
      organizationId: target.server.organizationId,
      kind,
      lease: null,
      active: 0,
      retired: false,
      ready: undefined as never,
    };
    entry.ready = this.#open(target).then(
      (connection) => {
        entry.connection = connection;
        void connection.closed.then(() => this.#forget(entry));
        if (this.#closed) void connection.close();
        return connection;
      },
      (error: unknown) => {
        // A failed connect is not cached: the next operation tries again.
        this.#forget(entry);
        throw error;
      },
    );
    this.#scopes.set(scope, [...(this.#scopes.get(scope) ?? []), entry]);
    this.#all.add(entry);
    return entry;
  }

  #released(entry: Entry): void {
    if (entry.active > 0) return;
    if (entry.kind === 'lent') {
      // Returned: the server's requests get the profile's policy until it is lent again.
      entry.lease = null;
      if (entry.connection) entry.connection.lease = undefined;
      this.#wake();
    }
    if (entry.retired) return void this.#closeEntry(entry);
    if (!this.#all.has(entry)) return;
    // Idle now: one of the process's idle sessions, the first to go once other profiles' are more recent.
    entry.parked ??= {
      scope: entry.scope,
      serverId: entry.serverId,
      organizationId: entry.organizationId,
      evict: () => {
        if (entry.active === 0) void this.#closeEntry(entry);
      },
    };
    this.#idle.park(entry.parked);
    // One timer per session, pushed back on every release (cheaper than a new timer per call).
    entry.idleTimer ??= setTimeout(() => {
      if (entry.active === 0) {
        this.#options.log.debug({ serverId: entry.serverId }, 'closing idle MCP connection');
        void this.#closeEntry(entry);
      }
    }, this.#options.idleTimeoutMs).unref();
    entry.idleTimer.refresh();
  }

  /** Lets the operations waiting for a lent session look again. */
  #wake(): void {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const resolve of waiting) resolve();
  }

  #retire(entry: Entry): void {
    entry.retired = true;
    this.#unlist(entry);
    if (entry.active === 0) void this.#closeEntry(entry);
  }

  #forget(entry: Entry): void {
    clearTimeout(entry.idleTimer);
    if (entry.parked) this.#idle.unpark(entry.parked);
    this.#unlist(entry);
    this.#all.delete(entry);
  }

  #unlist(entry: Entry): void {
    const entries = this.#scopes.get(entry.scope);
    if (!entries?.includes(entry)) return;
    const rest = entries.filter((e) => e !== entry);
    if (rest.length > 0) this.#scopes.set(entry.scope, rest);
    else this.#scopes.delete(entry.scope);
    // A lent session gone frees a place in its scope.
    if (entry.kind === 'lent') this.#wake();
  }

  #closeEntry(entry: Entry): Promise<void> {
    this.#forget(entry);
    const closing = entry.ready.then(
      (connection) => connection.close().catch(() => {}),
      () => {},
    );
    this.#closing.add(closing);
    void closing.finally(() => this.#closing.delete(closing));
    return closing;
  }
}
