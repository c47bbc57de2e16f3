import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import { ApiError, toEnvelope } from './errors.js';

/**
 * The bounds of every server-sent events stream: a stream is a caller-triggered job like any other, so it polls at
 * a modest pace, ends after a while (the client reconnects with Last-Event-ID), holds at most one event beyond the
 * socket's buffer for a client that reads nothing, and a key opens only so many at once.
 */
export interface EventStreamLimits {
  /** how often the database is read for news */
  pollMs: number;
  /** a comment line this often keeps proxies from closing a quiet stream */
  heartbeatMs: number;
  /** a stream is closed after this long; the client reconnects with Last-Event-ID */
  maxLifetimeMs: number;
  /** a stream whose client reads nothing this long after the socket's buffer filled is closed */
  drainTimeoutMs: number;
  /** open streams per API key in this process; one more is 429 RATE_LIMITED */
  perKey: number;
  /** how often a stream checks that its key may still act (not revoked, its user still a member) */
  keyCheckMs: number;
}

export const defaultEventStreamLimits: EventStreamLimits = {
  pollMs: 500,
  heartbeatMs: 15_000,
  maxLifetimeMs: 10 * 60_000,
  drainTimeoutMs: 30_000,
  perKey: 5,
  keyCheckMs: 5_000,
};

/** Why a stream closed: its events ended, the client left, one of the bounds, or its key can no longer act. */
export type CloseReason = 'end' | 'client' | 'lifetime' | 'drain-timeout' | 'error' | 'refused';

/** Asked every keyCheckMs: the refusal the stream's key would get now, or undefined while it may still act. */
export type KeyCheck = () => Promise<ApiError | undefined>;

/** What can be seen of one open stream from outside (operators, tests): what it wrote and whether it waits. */
export interface StreamState {
  keyId: string;
  /** what the stream is about, e.g. the run id */
  subject: string;
  /** bytes handed to the socket so far */
  bytesWritten: number;
  /** bytes held in this process, not yet taken by the socket */
  bytesBuffered: number;
  waitingForDrain: boolean;
  closed: CloseReason | null;
}

/** Resolved when the socket takes more, or the stream closed (then `closed` says why). */
class Drained {
  promise: Promise<void>;
  resolve!: () => void;
  constructor() {
    this.promise = new Promise((resolve) => (this.resolve = resolve));
  }
}

/**
 * One open text/event-stream reply. `send` writes an event and, when the socket's buffer is full, waits for it to
 * drain before returning, so the caller produces nothing more meanwhile; a client that reads nothing for
 * drainTimeoutMs is dropped. `signal` aborts when the stream closes for any reason, and every timer goes with it.
 */
export class EventStream {
  readonly state: StreamState;
  private readonly controller = new AbortController();
  private readonly timers: NodeJS.Timeout[] = [];
  private onClose: () => void = () => {};
  private onWait: () => void = () => {};
  /** set while send waits for the socket to drain */
  private drain: Drained | undefined;
  /** a key check is under way (a slow database must not pile them up) */
  private checking = false;

  constructor(
    private readonly res: Response,
    private readonly limits: EventStreamLimits,
    identity: { keyId: string; subject: string },
    private readonly keyCheck: KeyCheck,
  ) {
    this.state = { ...identity, bytesWritten: 0, bytesBuffered: 0, waitingForDrain: false, closed: null };
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get closed(): boolean {
    return this.state.closed !== null;
  }

  /** Sends the headers and starts the heartbeat and the lifetime clock. */
  open(on: { close: () => void; wait: () => void }): void {
    this.onClose = on.close;
    this.onWait = on.wait;
    this.res.status(200).set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      // nginx and similar proxies would otherwise hold events back
      'X-Accel-Buffering': 'no',
    });
    this.res.flushHeaders();
    this.res.on('close', () => this.close('client'));
    const heartbeat = setInterval(() => {
      // A client that reads nothing gets no heartbeat either: nothing is added while the buffer is full.
      if (!this.state.waitingForDrain) this.write(': heartbeat\n\n');
    }, this.limits.heartbeatMs);
    const lifetime = setTimeout(() => this.close('lifetime'), this.limits.maxLifetimeMs);
    const keyCheck = setInterval(() => void this.checkKey(), this.limits.keyCheckMs);
    this.timers.push(heartbeat, lifetime, keyCheck);
    // How long to wait before reconnecting, for EventSource clients.
    this.write('retry: 1000\n\n');
  }

  /** Writes one event; resolves once the socket can take more (at once, unless its buffer is full). */
  async send(event: string, data: unknown, id?: string): Promise<void> {
    if (this.closed) return;
    const frame = `event: ${event}\n${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`;
    if (this.write(frame)) return;
    await this.drained();
  }

  /** Ends the stream (once); the reason is kept in `state`. */
  close(reason: CloseReason): void {
    if (this.closed) return;
    this.state.closed = reason;
    this.state.waitingForDrain = false;
    for (const timer of this.timers) clearTimeout(timer);
    this.controller.abort();
    this.drain?.resolve();
    if (reason === 'drain-timeout' || reason === 'error') this.res.destroy();
    else if (!this.res.writableEnded) this.res.end();
    this.onClose();
  }

  /**
   * A key revoked, or whose user left the organization, loses its open streams as it loses its requests: the stream
   * says why (`event: error`, the 401's envelope) and closes; a client reconnecting then gets the 401 itself. A check
   * that cannot be made (the database is away) keeps the stream: the next one decides.
   */
  private async checkKey(): Promise<void> {
    if (this.checking || this.closed) return;
    this.checking = true;
    try {
      const refusal = await this.keyCheck().catch(() => undefined);
      if (!refusal || this.closed) return;
      // Written even when the socket's buffer is full: it is the last thing the stream says.
      this.write(`event: error\ndata: ${JSON.stringify(toEnvelope(refusal))}\n\n`);
      this.close('refused');
    } finally {
      this.checking = false;
    }
  }

  private write(chunk: string): boolean {
    if (this.closed) return false;
    const ok = this.res.write(chunk);
    this.state.bytesWritten += Buffer.byteLength(chunk);
    this.state.bytesBuffered = this.res.writableLength;
    return ok;
  }

  private async drained(): Promise<void> {
    const drain = (this.drain = new Drained());
    this.state.waitingForDrain = true;
    this.onWait();
    const onDrain = () => drain.resolve();
    this.res.once('drain', onDrain);
    const timeout = setTimeout(() => this.close('drain-timeout'), this.limits.drainTimeoutMs);
    try {
      await drain.promise;
    } finally {
      clearTimeout(timeout);
      this.res.off('drain', onDrain);
      this.drain = undefined;
      this.state.waitingForDrain = false;
      this.state.bytesBuffered = this.res.writableLength;
    }
  }
}

/** What EventStreams tells its listeners: a stream began waiting for its client to read, or closed. */
interface EventStreamsEvents {
  waiting: [StreamState];
  closed: [StreamState];
}

/**
 * The process's open event streams: enforces the per-key cap and lets operators and tests see each stream's state
 * (`states()`, and the `waiting` and `closed` events). The cap is per process; behind several API replicas a key may
 * hold that many on each.
 */
export class EventStreams extends EventEmitter<EventStreamsEvents> {
  readonly limits: EventStreamLimits;
  private readonly open = new Set<EventStream>();

  constructor(limits: Partial<EventStreamLimits> = {}) {
    super();
    this.limits = { ...defaultEventStreamLimits, ...limits };
  }

  /**
   * A new stream for this key, its headers sent; 429 RATE_LIMITED (nothing sent) when the key holds the most
   * already. `keyCheck` is asked every keyCheckMs whether the key may still act.
   */
  start(res: Response, identity: { keyId: string; subject: string }, keyCheck: KeyCheck): EventStream {
    const held = [...this.open].filter((s) => s.state.keyId === identity.keyId).length;
    if (held >= this.limits.perKey) {
      throw new ApiError(
        'RATE_LIMITED',
        `this key has ${held} event streams open, the most it may; close one (or wait for one to end) and retry`,
        { reason: 'TOO_MANY_STREAMS', limit: this.limits.perKey },
        { 'Retry-After': '5' },
      );
    }
    const stream = new EventStream(res, this.limits, identity, keyCheck);
    this.open.add(stream);
    stream.open({
      close: () => {
        this.open.delete(stream);
        this.emit('closed', { ...stream.state });
      },
      wait: () => this.emit('waiting', { ...stream.state }),
    });
    return stream;
  }

  /** Every open stream's state (a copy). */
  states(): StreamState[] {
    return [...this.open].map((s) => ({ ...s.state }));
  }
}
