import type { Logger } from '../logger.js';
import { OperationFailure } from '../errors.js';
import { openConnection, type ConnectTarget, type McpConnection } from './connection.js';

export interface PoolOptions {
  /** a connection nobody used for this long is closed (its child process exits) */
  idleTimeoutMs: number;
  log: Logger;
  /** how sessions are opened; the real one unless a test needs another */
  open?: (target: ConnectTarget) => Promise<McpConnection>;
}

interface Entry {
  key: string;
  serverId: string;
  ready: Promise<McpConnection>;
  connection?: McpConnection;
  /** operations currently using it */
  active: number;
  /** superseded (edited server, new tokens) or broken: closed as soon as nobody uses it */
  retired: boolean;
  idleTimer?: NodeJS.Timeout;
}

/**
 * One live MCP session per saved server and process, shared by every operation: a stdio server is spawned once,
 * not per request. The key holds the server's revision and OAuth token generation, so an edited server or newly
 * imported/refreshed tokens get a fresh session while the old one finishes its in-flight calls.
 */
export class ConnectionPool {
  readonly #current = new Map<string, Entry>();
  readonly #all = new Set<Entry>();
  /** closes under way (retired or idle sessions), so close() can wait for their children too */
  readonly #closing = new Set<Promise<void>>();
  readonly #options: PoolOptions;
  readonly #open: (target: ConnectTarget) => Promise<McpConnection>;
  #closed = false;

  constructor(options: PoolOptions) {
    this.#options = options;
    this.#open = options.open ?? openConnection;
  }

  /** Runs `work` on the server's live session, opening it first when there is none (once, however many wait). */
  async use<T>(target: ConnectTarget, work: (connection: McpConnection) => Promise<T>): Promise<T> {
    const entry = this.#acquire(target);
    entry.active++;
    try {
      return await work(await entry.ready);
    } finally {
      entry.active--;
      this.#released(entry);
    }
  }

  /** Stops handing out a session that failed at the connection level; the next operation opens a new one. */
  discard(connection: McpConnection): void {
    for (const entry of this.#all) if (entry.connection === connection) this.#retire(entry);
  }

  /** Sessions currently open or opening. */
  get size(): number {
    return this.#all.size;
  }

  /** Closes every session and waits for every child process to exit. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...[...this.#all].map((entry) => this.#closeEntry(entry)), ...this.#closing]);
  }

  #acquire(target: ConnectTarget): Entry {
    if (this.#closed) throw new OperationFailure('INTERNAL_ERROR', 'the MCP connection pool is shutting down');
    const key = `${target.server.id}:${target.server.revision}:${target.credentials?.generation ?? 0}`;
    const current = this.#current.get(target.server.id);
    if (current?.key === key) return current;
    if (current) this.#retire(current);

    const entry: Entry = { key, serverId: target.server.id, active: 0, retired: false, ready: undefined as never };
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
    this.#current.set(entry.serverId, entry);
    this.#all.add(entry);
    return entry;
  }

  #released(entry: Entry): void {
    if (entry.active > 0) return;
    if (entry.retired) return void this.#closeEntry(entry);
    if (!this.#all.has(entry)) return;
    // One timer per session, pushed back on every release (cheaper than a new timer per call).
    entry.idleTimer ??= setTimeout(() => {
      if (entry.active === 0) {
        this.#options.log.debug({ serverId: entry.serverId }, 'closing idle MCP connection');
        void this.#closeEntry(entry);
      }
    }, this.#options.idleTimeoutMs).unref();
    entry.idleTimer.refresh();
  }

  #retire(entry: Entry): void {
    entry.retired = true;
    if (this.#current.get(entry.serverId) === entry) this.#current.delete(entry.serverId);
    if (entry.active === 0) void this.#closeEntry(entry);
  }

  #forget(entry: Entry): void {
    clearTimeout(entry.idleTimer);
    if (this.#current.get(entry.serverId) === entry) this.#current.delete(entry.serverId);
    this.#all.delete(entry);
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
