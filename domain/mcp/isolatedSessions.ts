import type { Logger } from '../ports/logger.js';
import { OperationFailure } from '../failures.js';
import type { ClientAnswers } from './clientRequests.js';
import type { ConnectTarget, McpConnection } from './connection.js';
import type { IdleSessions, Parked } from './idleSessions.js';

/** Where an operation gets its session: the process's pool (shared or lent sessions) or one caller's own sessions. */
export interface SessionSource {
  use<T>(target: ConnectTarget, work: (connection: McpConnection) => Promise<T>, lease?: ClientAnswers): Promise<T>;
  /** the session failed at the connection level: it is not used again */
  discard(connection: McpConnection): void;
}

/** Sessions that belong to one caller (an eval iteration) alone; closed, never reused, when it ends. */
export interface IsolatedSession extends SessionSource {
  close(): Promise<void>;
}

interface Options {
  open: (target: ConnectTarget) => Promise<McpConnection>;
  /** sessions kept opened and initialized ahead, per server and client profile */
  warmSessions: number;
  /** warm sessions nobody took for this long are closed */
  idleTimeoutMs: number;
  log: Logger;
  /** the scope (server and client profile) and key (revision, token generation) of a target, as the pool reads them */
  scopeOf: (target: ConnectTarget) => { scope: string; key: string };
  /** the process's idle sessions: warm ones count against the same bounds (per server, per organization) */
  idle: IdleSessions;
}

/** stdio servers started at once for isolated callers; the others wait (WarmSessions.#spawn) */
const MAX_STARTING = 4;

interface Warm {
  key: string;
  serverId: string;
  ready: Promise<McpConnection>;
  /** its place among the process's idle sessions until it is taken (a session started for a caller has none) */
  parked?: Parked;
}

/**
 * Fresh sessions for isolated callers, from a small set of sessions opened ahead of demand: a stdio server's
 * process is started (and an HTTP session initialized) before an iteration asks for it, so isolation costs the
 * iteration no connect time while a warm one is ready. A taken session is replaced in the background; one is never
 * handed out twice. Sessions of an edited server or of replaced tokens (another key) are not handed out.
 */
export class WarmSessions {
  readonly #options: Options;
  readonly #warm = new Map<string, Warm[]>();
  readonly #idle = new Map<string, NodeJS.Timeout>();
  /** every session opened here and not yet closed: warm, or taken by a caller */
  readonly #open = new Set<Promise<McpConnection>>();
  readonly #closing = new Set<Promise<void>>();
  /** stdio processes being started now, and the starts waiting for one of them to be done */
  #starting = 0;
  #queued: Array<() => void> = [];
  #closed = false;

  constructor(options: Options) {
    this.#options = options;
  }

  /** A session of the target's scope nobody else ever used; the scope's warm set is topped up again. */
  take(target: ConnectTarget): Promise<McpConnection> {
    if (this.#closed) throw new OperationFailure('INTERNAL_ERROR', 'the MCP connection pool is shutting down');
    const { scope, key } = this.#options.scopeOf(target);
    const warm = (this.#warm.get(scope) ?? []).filter((w) => {
      if (w.key === key) return true;
      this.#unpark(w);
      void this.release(w.ready);
      return false;
    });
    this.#warm.set(scope, warm);
    const taken = warm.shift() ?? this.#start(target, key, scope);
    this.#unpark(taken);
    this.#options.idle.touch(scope);
    this.#touch(scope);
    // Topped up once the caller's session is there, so that opening the next ones does not slow down this one (a
    // process start is mostly CPU).
    const topUp = () => {
      const list = this.#warm.get(scope);
      if (this.#closed || !list) return;
      while (list.length < this.#options.warmSessions) {
        const warm = this.#start(target, key, scope);
        list.push(warm);
        // Warm sessions count among the idle ones: other profiles' are closed for them past the bounds.
        warm.parked = {
          scope,
          serverId: warm.serverId,
          organizationId: target.server.organizationId,
          evict: () => {
            if (this.#drop(scope, warm)) void this.release(warm.ready);
          },
        };
        this.#options.idle.park(warm.parked);
      }
    };
    taken.ready.then(topUp, topUp);
    return taken.ready;
  }

  /** Closes a session taken from here (or a warm one); its process exits. */
  release(ready: Promise<McpConnection>): Promise<void> {
    if (!this.#open.delete(ready)) return Promise.resolve();
    const closing = ready.then(
      (connection) => connection.close().catch(() => {}),
      () => {},
    );
    this.#closing.add(closing);
    void closing.finally(() => this.#closing.delete(closing));
    return closing;
  }

  /** Closes every session opened here, warm or taken, and waits for their processes to exit. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const resolve of this.#queued.splice(0)) resolve();
    for (const timer of this.#idle.values()) clearTimeout(timer);
    for (const list of this.#warm.values()) for (const w of list) this.#unpark(w);
    this.#warm.clear();
    await Promise.all([...[...this.#open].map((ready) => this.release(ready)), ...this.#closing]);
  }

  #start(target: ConnectTarget, key: string, scope: string): Warm {
    const ready = target.server.transportType === 'stdio' ? this.#spawn(target) : this.#options.open(target);
    const warm: Warm = { key, serverId: target.server.id, ready };
    this.#open.add(ready);
    ready.then(
      (connection) => {
        // A warm session whose server went away (the child died, the stream broke) is not handed out.
        void connection.closed.then(() => {
          if (this.#drop(scope, warm)) void this.release(ready);
        });
        if (this.#closed) void this.release(ready);
      },
      () => {
        this.#open.delete(ready);
        this.#drop(scope, warm);
      },
    );
    return warm;
  }

  /**
   * A stdio session, its process started when fewer than MAX_STARTING are starting: a burst of iterations (eight
   * lanes at once) then starts its processes a few at a time, each within its connect timeout, instead of all of
   * them sharing the CPU until every one times out. The timeout runs from the start, not from the queue.
   */
  async #spawn(target: ConnectTarget): Promise<McpConnection> {
    while (this.#starting >= MAX_STARTING) await new Promise<void>((resolve) => this.#queued.push(resolve));
    if (this.#closed) throw new OperationFailure('INTERNAL_ERROR', 'the MCP connection pool is shutting down');
    this.#starting++;
    try {
      return await this.#options.open(target);
    } finally {
      this.#starting--;
      this.#queued.shift()?.();
    }
  }

  #unpark(warm: Warm): void {
    if (warm.parked) this.#options.idle.unpark(warm.parked);
  }

  /** Takes a session out of the warm set; whether it was there (not yet taken). */
  #drop(scope: string, warm: Warm): boolean {
    this.#unpark(warm);
    const list = this.#warm.get(scope);
    if (!list?.includes(warm)) return false;
    this.#warm.set(
      scope,
      list.filter((w) => w !== warm),
    );
    return true;
  }

  /** A scope nobody took a session of for the idle timeout gives its warm sessions back. */
  #touch(scope: string): void {
    const timer = this.#idle.get(scope);
    if (timer) return void timer.refresh();
    this.#idle.set(
      scope,
      setTimeout(() => {
        this.#idle.delete(scope);
        const warm = this.#warm.get(scope) ?? [];
        this.#warm.delete(scope);
        if (warm.length > 0)
          this.#options.log.debug({ scope, sessions: warm.length }, 'closing idle warm MCP sessions');
        for (const w of warm) {
          this.#unpark(w);
          void this.release(w.ready);
        }
      }, this.#options.idleTimeoutMs).unref(),
    );
  }
}

/**
 * One caller's sessions: the first operation on a server takes a fresh session from the warm set, the next ones
 * use it again (an iteration's tool calls share one conversation with the server), and close() ends them all.
 * A server's request (sampling, elicitation) cannot be told apart by the call it belongs to, so calls that answer
 * such requests themselves (`lease`) take turns on the session: each one's requests reach its own answers.
 */
export function isolatedSession(warm: WarmSessions, scopeOf: Options['scopeOf']): IsolatedSession {
  const sessions = new Map<string, Promise<McpConnection>>();
  /** per session: the lease of the calls in flight, how many there are, and who waits for their turn */
  const turns = new Map<McpConnection, { lease: ClientAnswers | undefined; active: number; waiting: (() => void)[] }>();
  let closed = false;

  async function enter(connection: McpConnection, lease: ClientAnswers | undefined): Promise<void> {
    let turn = turns.get(connection);
    if (!turn) turns.set(connection, (turn = { lease, active: 0, waiting: [] }));
    // Calls without answers of their own, or with the same ones, run side by side.
    while (turn.active > 0 && lease !== undefined && turn.lease !== lease)
      await new Promise<void>((resolve) => turn.waiting.push(resolve));
    if (turn.active === 0 || lease !== undefined) turn.lease = lease;
    turn.active++;
    connection.lease = turn.lease;
  }

  function leave(connection: McpConnection): void {
    const turn = turns.get(connection);
    if (!turn || --turn.active > 0) return;
    for (const resolve of turn.waiting.splice(0)) resolve();
  }

  return {
    async use(target, work, lease) {
      if (closed) throw new OperationFailure('INTERNAL_ERROR', 'this isolated MCP session has ended');
      const { scope, key } = scopeOf(target);
      const id = `${scope}|${key}`;
      let ready = sessions.get(id);
      if (!ready) {
        const taken = warm.take(target);
        sessions.set(id, taken);
        // A session that could not be opened is not kept: the next operation tries a fresh one.
        taken.catch(() => sessions.get(id) === taken && sessions.delete(id));
        ready = taken;
      }
      const connection = await ready;
      await enter(connection, lease);
      try {
        return await work(connection);
      } finally {
        leave(connection);
      }
    },
    discard(connection) {
      for (const [id, ready] of sessions)
        void ready.then(
          (c) => {
            if (c !== connection || sessions.get(id) !== ready) return;
            sessions.delete(id);
            void warm.release(ready);
          },
          () => {},
        );
    },
    async close() {
      closed = true;
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.all(all.map((ready) => warm.release(ready)));
    },
  };
}
